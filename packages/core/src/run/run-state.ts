import { createEstimatorAccuracyTracker, type EstimatorAccuracyTracker } from '../budget/accuracy-tracker.js';
import { resolveContextPolicy, type ContextPolicy } from '../budget/policy.js';
import { CancelledError, InvalidInputError } from '../errors.js';
import { createEmitter } from '../events/emitter.js';
import type { ErrorSummary, ForgeEvent, RunStatus } from '../events/events.js';
import { assertSafeId, createId } from '../ids.js';
import type { InstructionSnapshot } from '../instructions.js';
import type { Message, UserMessage } from '../messages.js';
import { emptyUsage, type ToolDefinition, type Usage } from '../model/adapter.js';
import { promptCacheKey } from '../pricing/prompt-cache-key.js';
import { toolDefinitions, type Tool } from '../tools/tool.js';
import { withObservers } from './emitter.js';
import { summarizeError } from './error-summary.js';
import { RunContext } from './prepare-request.js';
import { RunCostMeter } from './run-cost.js';
import { endRun } from './run-end.js';
import type { RunAgentOptions, RunResult, RunSession } from './types.js';

const DEFAULT_MAX_STEPS = 25;

/** What one run holds from its start to its end, shared by the phases of its steps. */
export interface RunState {
  readonly options: RunAgentOptions;
  readonly now: () => number;
  readonly maxSteps: number;
  readonly session: RunSession;
  readonly signal: AbortSignal;
  readonly emit: (event: ForgeEvent) => void;
  readonly tools: ReadonlyMap<string, Tool>;
  readonly definitions: readonly ToolDefinition[];
  readonly instructions: InstructionSnapshot;
  readonly currentRequest: UserMessage;
  /** This run's messages after the request, as recorded. */
  readonly continuation: Message[];
  readonly costs: RunCostMeter;
  readonly estimatorAccuracy: EstimatorAccuracyTracker;
  readonly context: RunContext;
  readonly cacheKey: string;
  usage: Usage;
  /** Model steps sent so far. */
  steps: number;
  /** Cache reads the provider reported for the last step. */
  cacheReadTokens: number | undefined;
  lastRequestAt: number | undefined;
  /** Adds a message to the run and hands it to the session. */
  record(message: Message): Promise<void>;
  /** Ends the run with `status`: emits its last event and gives the result. */
  finish(status: RunStatus, error?: ErrorSummary): RunResult;
}

/**
 * Starts a run: checks the options, loads the instructions once, emits `run.started`, hands the
 * request to the session and sets up the context every step is sent in.
 */
export async function startRun(options: RunAgentOptions): Promise<RunState> {
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
  const estimatorAccuracy = session.capabilities?.estimatorAccuracy ?? createEstimatorAccuracyTracker();
  const tools = indexTools(options.tools ?? []);
  const signal = options.signal ?? new AbortController().signal;
  const emit = createEmitter({
    runId,
    sessionId: session.id,
    now,
    listener: withObservers(options.onEvent, options.observers),
  });
  const instructions = typeof options.instructions === 'function' ? await options.instructions() : options.instructions;
  const currentRequest: UserMessage = { role: 'user', content: options.request };
  const prices = options.model.capabilities.prices;
  const continuation: Message[] = [];
  emit({
    type: 'run.started',
    model: { provider: options.model.provider, modelId: options.model.modelId },
    instructions: { hash: instructions.hash, sources: instructions.sources },
    tools: [...tools.keys()],
    maxSteps,
    historyMessages: session.history?.messages.length ?? 0,
    ...(prices === undefined ? {} : { prices }),
  });
  await session.append?.(currentRequest);
  const context = createContext(options, policy, instructions, emit);
  const definitions = toolDefinitions(tools.values());
  const run: RunState = {
    options,
    now,
    maxSteps,
    session,
    signal,
    emit,
    tools,
    definitions,
    instructions,
    currentRequest,
    continuation,
    costs: new RunCostMeter(prices),
    estimatorAccuracy,
    context,
    cacheKey: promptCacheKey({
      conversation: session.id ?? runId,
      provider: options.model.provider,
      modelId: options.model.modelId,
      instructionsHash: instructions.hash,
      tools: definitions,
    }),
    usage: emptyUsage,
    steps: 0,
    cacheReadTokens: undefined,
    lastRequestAt: session.capabilities?.cache?.lastRequestAt,
    record: async (message) => {
      continuation.push(message);
      await session.append?.(message);
    },
    finish: (status, error) =>
      endRun(emit, {
        runId,
        status,
        messages: [currentRequest, ...continuation],
        steps: run.steps,
        usage: run.usage,
        durationMs: now() - startedAt,
        instructionsHash: instructions.hash,
        error,
        cost: run.costs.summary(run.usage),
      }),
  };
  return run;
}

/** Ends the run `cancelled`. */
export function cancelRun(run: RunState): RunResult {
  return run.finish('cancelled', summarizeError(new CancelledError()));
}

/** The context of the run's steps, from the view the session lends and the host's compaction parts. */
function createContext(
  options: RunAgentOptions,
  policy: ContextPolicy,
  instructions: InstructionSnapshot,
  emit: (event: ForgeEvent) => void,
): RunContext {
  const { history, contextManager, capabilities } = options.session ?? {};
  return new RunContext({
    model: options.model,
    policy,
    instructionsHash: instructions.hash,
    emit,
    history: history?.messages ?? [],
    ...(history?.checkpoint === undefined ? {} : { checkpoint: history.checkpoint }),
    ...(history?.nativeState === undefined ? {} : { nativeState: history.nativeState }),
    ...(history?.origin === undefined ? {} : { origin: history.origin }),
    ...(contextManager === undefined ? {} : { manager: contextManager }),
    ...(options.compactionGuard === undefined ? {} : { guard: options.compactionGuard }),
    ...(options.toolOutputProjection === undefined ? {} : { projection: options.toolOutputProjection }),
    ...(capabilities?.projectedToolCalls === undefined || policy.mode !== 'compact'
      ? {}
      : { projected: capabilities.projectedToolCalls }),
    ...(capabilities?.compactionRequests === undefined ? {} : { requests: capabilities.compactionRequests }),
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
