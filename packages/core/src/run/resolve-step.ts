import { reconcileStep } from '../budget/preflight.js';
import { ContextOverflowError } from '../errors.js';
import type { ToolCallPart } from '../messages.js';
import { fitAfterOverflow } from './fit-request.js';
import { summarizeError } from './error-summary.js';
import { CUT_ANSWER_NOTE, type StepOutcome } from './model-step.js';
import type { PendingStep } from './prepare-request.js';
import { preflightStep, type PreparedStep } from './preflight.js';
import { cancelRun, type RunState } from './run-state.js';
import type { RunResult } from './types.js';
import { addUsage } from './usage.js';

export type SendStep = Extract<PreparedStep, { kind: 'send' }>;

/** What follows a model step: send it again (after an overflow), end the run, or run its tool calls. */
export type StepResolution =
  | { readonly kind: 'send'; readonly prepared: SendStep }
  | { readonly kind: 'finish'; readonly result: RunResult }
  | { readonly kind: 'tools'; readonly calls: readonly ToolCallPart[] };

/**
 * Resolves a model step. One clean provider overflow per run (nothing was shown) is recovered:
 * room is made and the same admitted input is sent again, smaller. A broken step ends the run
 * (`cancelled` or `failed`, keeping what had streamed); a finished one is counted, reconciled with
 * its estimate and recorded, and ends the run when it made no tool calls.
 */
export async function resolveStep(
  run: RunState,
  pending: PendingStep,
  sent: SendStep,
  outcome: StepOutcome,
): Promise<StepResolution> {
  if (isCleanOverflow(outcome, run.signal)) {
    const retry = await fitAfterOverflow(run.context, pending);
    const prepared = retry?.kind === 'fitted' ? await preflightStep(run.context, pending.step, retry) : retry;
    if (prepared?.kind === 'stop')
      return { kind: 'finish', result: run.finish(prepared.stop.status, prepared.stop.error) };
    if (prepared !== undefined) return { kind: 'send', prepared };
  }
  if (outcome.kind === 'broken') {
    if (outcome.partialText.length > 0) {
      await run.record({ role: 'assistant', content: [{ type: 'text', text: outcome.partialText + CUT_ANSWER_NOTE }] });
    }
    if (run.signal.aborted) return { kind: 'finish', result: cancelRun(run) };
    const error = summarizeError(outcome.error);
    run.emit({ type: 'model.step.failed', step: pending.step, error });
    return { kind: 'finish', result: run.finish('failed', error) };
  }
  const calls = await completeStep(run, pending.step, sent, outcome);
  return calls.length === 0 ? { kind: 'finish', result: run.finish('completed') } : { kind: 'tools', calls };
}

function isCleanOverflow(outcome: StepOutcome, signal: AbortSignal): boolean {
  return (
    outcome.kind === 'broken' &&
    outcome.partialText.length === 0 &&
    ContextOverflowError.isInstance(outcome.error) &&
    !signal.aborted
  );
}

/** Counts a finished step (warning first when its usage had to be clamped), emits `model.step.completed`, reconciles its estimate and records its message; gives its tool calls. */
async function completeStep(
  run: RunState,
  step: number,
  sent: SendStep,
  outcome: Extract<StepOutcome, { kind: 'finished' }>,
): Promise<ToolCallPart[]> {
  if (outcome.usageProblem !== undefined)
    run.emit({
      type: 'context.warning',
      step,
      reason: 'implausible_usage',
      usedTokens: outcome.usage.inputTokens ?? 0,
      availableInputTokens: sent.budget?.availableInputTokens ?? 0,
      warnAtTokens: sent.budget?.warnAtTokens ?? 0,
      message: outcome.usageProblem,
    });
  run.usage = addUsage(run.usage, outcome.usage);
  run.cacheReadTokens = outcome.usage.cacheReadTokens;
  const calls = outcome.message.content.filter((part): part is ToolCallPart => part.type === 'tool-call');
  const stepCost = run.costs.step(outcome.usage);
  run.emit({
    type: 'model.step.completed',
    step,
    finishReason: outcome.finishReason,
    usage: outcome.usage,
    toolCalls: calls.length,
    ...(stepCost === undefined ? {} : { cost: stepCost }),
  });
  if (sent.budget !== undefined) {
    reconcileStep({
      model: run.options.model,
      budget: sent.budget,
      usage: outcome.usage,
      step,
      tracker: run.estimatorAccuracy,
      emit: run.emit,
    });
  }
  await run.record(outcome.message);
  return calls;
}
