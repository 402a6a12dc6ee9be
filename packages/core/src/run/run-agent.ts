import { createEstimatorAccuracyTracker } from '../budget/accuracy-tracker.js';
import { resolveContextPolicy } from '../budget/policy.js';
import { reconcileStep } from '../budget/preflight.js';
import { RunContext, type StepInput } from '../compaction/run-context.js';
import { CancelledError, ContextOverflowError, InvalidInputError } from '../errors.js';
import type { ErrorSummary, RunStatus } from '../events/events.js';
import { assertSafeId, createId } from '../ids.js';
import type { Message, ToolCallPart, UserMessage } from '../messages.js';
import { emptyUsage, type ModelRequest, type Usage } from '../model/adapter.js';
import { promptCacheKey } from '../pricing/prompt-cache-key.js';
import { toolDefinitions, type Tool } from '../tools/tool.js';
import { createEmitter } from '../events/emitter.js';
import { withObservers } from './emitter.js';
import { summarizeError } from './error-summary.js';
import { CUT_ANSWER_NOTE, runModelStep, type StepOutcome } from './model-step.js';
import { RunCostMeter } from './run-cost.js';
import { endRun } from './run-end.js';
import { runToolCalls } from './tool-step.js';
import type { RunAgentOptions, RunResult } from './types.js';
import { addUsage } from './usage.js';

const DEFAULT_MAX_STEPS = 25;

/**
 * Runs one agent turn: model step → tool calls → results → next step, until the model answers
 * without tool calls, the step limit is reached, the run is cancelled or a step fails. Never
 * throws for model or tool failures; they end the run with a typed status instead.
 */
export async function runAgent(options: RunAgentOptions): Promise<RunResult> {
  const now = options.now ?? Date.now;
  const startedAt = now();
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  if (!Number.isInteger(maxSteps) || maxSteps < 1) {
    throw new InvalidInputError({ message: `maxSteps must be a positive integer, got ${String(maxSteps)}.` });
  }
  const runId = options.runId === undefined ? createId('run', startedAt) : assertSafeId(options.runId, 'run id');
  const session = options.session ?? {};
  if (session.id !== undefined) assertSafeId(session.id, 'session id');
  const policy = resolveContextPolicy(options.context);
  const estimatorAccuracy = session.estimatorAccuracy ?? createEstimatorAccuracyTracker();
  const tools = indexTools(options.tools ?? []);
  const signal = options.signal ?? new AbortController().signal;
  const emit = createEmitter({
    runId,
    sessionId: session.id,
    now,
    listener: withObservers(options.onEvent, options.observers),
  });

  const instructions = typeof options.instructions === 'function' ? await options.instructions() : options.instructions;
  const history = session.history ?? [];
  const currentRequest: UserMessage = { role: 'user', content: options.request };
  const continuation: Message[] = [];
  let usage: Usage = emptyUsage;
  const prices = options.model.capabilities.prices;
  const costs = new RunCostMeter(prices);
  let steps = 0;
  const record = async (message: Message) => {
    continuation.push(message);
    await session.onMessage?.(message);
  };

  emit({
    type: 'run.started',
    model: { provider: options.model.provider, modelId: options.model.modelId },
    instructions: { hash: instructions.hash, sources: instructions.sources },
    tools: [...tools.keys()],
    maxSteps,
    historyMessages: history.length,
    ...(prices === undefined ? {} : { prices }),
  });
  await session.onMessage?.(currentRequest);

  const finish = (status: RunStatus, error?: ErrorSummary): RunResult => {
    const durationMs = now() - startedAt;
    return endRun(emit, {
      runId,
      status,
      messages: [currentRequest, ...continuation],
      steps,
      usage,
      durationMs,
      instructionsHash: instructions.hash,
      error,
      cost: costs.summary(usage),
    });
  };

  const context = new RunContext({
    model: options.model,
    policy,
    instructionsHash: instructions.hash,
    emit,
    history,
    ...(session.checkpoint === undefined ? {} : { checkpoint: session.checkpoint }),
    ...(session.nativeState === undefined ? {} : { nativeState: session.nativeState }),
    ...(session.viewOrigin === undefined ? {} : { origin: session.viewOrigin }),
    ...(options.contextManager === undefined ? {} : { manager: options.contextManager }),
    ...(options.compactionGuard === undefined ? {} : { guard: options.compactionGuard }),
    ...(options.toolOutputProjection === undefined ? {} : { projection: options.toolOutputProjection }),
    ...(session.projectedToolCalls === undefined || policy.mode !== 'compact'
      ? {}
      : { projected: session.projectedToolCalls }),
    ...(session.compactionRequests === undefined ? {} : { requests: session.compactionRequests }),
  });
  const definitions = toolDefinitions(tools.values());
  const cacheKey = promptCacheKey({
    conversation: session.id ?? runId,
    provider: options.model.provider,
    modelId: options.model.modelId,
    instructionsHash: instructions.hash,
    tools: definitions,
  });
  let cacheReadTokens: number | undefined;
  let lastRequestAt = session.lastRequestAt;

  while (steps < maxSteps) {
    if (signal.aborted) return finish('cancelled', summarizeError(new CancelledError()));
    const step = steps + 1;
    const input: StepInput = {
      instructions: instructions.text,
      currentRequest,
      continuation: [...continuation],
      tools: definitions,
      ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
    };
    // Preflight: the budget is decided (and room made, in mode compact) before the provider is contacted, on every step.
    const cache = {
      ...(cacheReadTokens === undefined ? {} : { readTokens: cacheReadTokens }),
      ...(lastRequestAt === undefined ? {} : { idleMs: Math.max(0, now() - lastRequestAt) }),
      ...(step === 1 && session.checkpointChanged === true ? { checkpointChanged: true } : {}),
    };
    let prepared = await context.prepare(step, input, signal, cache);
    if (prepared.kind === 'stop') return finish(prepared.stop.status, prepared.stop.error);
    steps = step;
    const attempt = (request: ModelRequest): Promise<StepOutcome> => {
      emit({ type: 'model.step.started', step });
      lastRequestAt = now();
      return runModelStep(options.model, request, signal, (delta) => emit({ type: 'model.text.delta', step, delta }), {
        promptCacheKey: cacheKey,
      });
    };
    let outcome = await attempt(prepared.request);
    // One recovery from a clean overflow: nothing was shown, so the same admitted input is sent again, smaller.
    if (
      outcome.kind === 'broken' &&
      outcome.partialText.length === 0 &&
      ContextOverflowError.isInstance(outcome.error) &&
      !signal.aborted
    ) {
      const retry = await context.recoverOverflow(step, input, signal);
      if (retry?.kind === 'stop') return finish(retry.stop.status, retry.stop.error);
      if (retry !== undefined) {
        prepared = retry;
        outcome = await attempt(retry.request);
      }
    }

    if (outcome.kind === 'broken') {
      if (outcome.partialText.length > 0) {
        await record({ role: 'assistant', content: [{ type: 'text', text: outcome.partialText + CUT_ANSWER_NOTE }] });
      }
      if (signal.aborted) return finish('cancelled', summarizeError(new CancelledError()));
      const error = summarizeError(outcome.error);
      emit({ type: 'model.step.failed', step, error });
      return finish('failed', error);
    }

    if (outcome.usageProblem !== undefined)
      emit({
        type: 'context.warning',
        step,
        reason: 'implausible_usage',
        usedTokens: outcome.usage.inputTokens ?? 0,
        availableInputTokens: prepared.budget?.availableInputTokens ?? 0,
        warnAtTokens: prepared.budget?.warnAtTokens ?? 0,
        message: outcome.usageProblem,
      });
    usage = addUsage(usage, outcome.usage);
    cacheReadTokens = outcome.usage.cacheReadTokens;
    const calls = outcome.message.content.filter((part): part is ToolCallPart => part.type === 'tool-call');
    const stepCost = costs.step(outcome.usage);
    emit({
      type: 'model.step.completed',
      step,
      finishReason: outcome.finishReason,
      usage: outcome.usage,
      toolCalls: calls.length,
      ...(stepCost === undefined ? {} : { cost: stepCost }),
    });
    if (prepared.budget !== undefined) {
      reconcileStep({
        model: options.model,
        budget: prepared.budget,
        usage: outcome.usage,
        step,
        tracker: estimatorAccuracy,
        emit,
      });
    }
    await record(outcome.message);
    if (calls.length === 0) return finish('completed');

    await record(await runToolCalls({ calls, tools, approvals: options.approvals, signal, step, emit, now }));
    if (signal.aborted) return finish('cancelled', summarizeError(new CancelledError()));
  }
  return finish('step_limit', {
    code: 'step_limit',
    message: `The run stopped after ${maxSteps} model steps without a final answer.`,
    isRetryable: false,
  });
}

function indexTools(tools: readonly Tool[]): Map<string, Tool> {
  const byName = new Map<string, Tool>();
  for (const tool of tools) {
    if (byName.has(tool.name))
      throw new InvalidInputError({ message: `Two tools are named "${tool.name}"; tool names must be unique.` });
    byName.set(tool.name, tool);
  }
  return byName;
}
