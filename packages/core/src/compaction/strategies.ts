import type { ContextBudget } from '../budget/budget.js';
import type { CheckpointCaps } from '../checkpoint/caps.js';
import type { ForgeStateCheckpoint } from '../checkpoint/schema.js';
import { validateCheckpoint } from '../checkpoint/validate.js';
import type { ErrorSummary } from '../events/events.js';
import type { Message } from '../messages.js';
import type { ModelAdapter, ModelRequest, TokenEstimate } from '../model/adapter.js';
import type { OpaqueProviderState } from '../model/opaque-state.js';
import { summarizeError } from '../run/error-summary.js';
import { hashMessages } from '../hashing.js';
import { withNativeState, withStructuredSummary, withViewTokens, type BuiltCheckpoint } from './built-checkpoint.js';
import type { CompactTranscriptOptions } from './compact-transcript.js';
import { compactionRequired } from './cost-gate.js';
import { compactorRequest, runCompactor, structuredSummaryInconsistencies } from './compactor-model.js';
import type { CompactionStrategyName, CompactorDisclosure } from './events.js';

/** Longest a compactor model may take for one compaction unless configured (2 minutes). */
export const DEFAULT_COMPACTOR_TIMEOUT_MS = 120_000;

/**
 * How checkpoints are built. `forge-state` (the default) calls no model and works even when the
 * window is full. `model-structured` asks a separately configured compactor model — never the
 * active one by implication, never another provider as a fallback — for the structured summary.
 * `provider-native` asks the active model's adapter for its opaque compaction item, when it
 * offers one. The last two fall back to `forge-state` whenever they fail.
 */
export type CompactionStrategySetting =
  | { readonly kind: 'forge-state' }
  | {
      readonly kind: 'model-structured';
      readonly compactor: ModelAdapter;
      /** Default {@link DEFAULT_COMPACTOR_TIMEOUT_MS}. */
      readonly timeoutMs?: number;
      /** Output cap of one compaction; default twice `summaryTargetTokens`, at least 512. */
      readonly maxOutputTokens?: number;
    }
  | { readonly kind: 'provider-native' };

/** The output cap a compactor is given. */
export function compactorOutputCap(
  setting: Extract<CompactionStrategySetting, { kind: 'model-structured' }>,
  summaryTargetTokens: number,
): number {
  return setting.maxOutputTokens ?? Math.max(512, 2 * summaryTargetTokens);
}

/** What one compaction costs in model tokens, and who receives the conversation. */
export interface CompactorCost {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly disclosure?: CompactorDisclosure;
}

/**
 * Model tokens one compaction of `[0, tailStart)` costs: 0 for `forge-state`; the compactor's
 * estimate of its request plus the output cap for `model-structured`; the summarized messages
 * plus the summary target for `provider-native` (the provider reads them all).
 */
export async function compactorCost(options: CompactTranscriptOptions, tailStart: number): Promise<CompactorCost> {
  const { strategy } = options;
  if (strategy.kind === 'forge-state') return { inputTokens: 0, outputTokens: 0 };
  if (strategy.kind === 'provider-native') {
    const counts = await options.model.countMessageTokens(
      options.transcript.slice(0, tailStart).map((entry) => entry.message),
    );
    const inputTokens = counts.reduce((total, tokens) => total + tokens, 0);
    return { inputTokens, outputTokens: options.policy.summaryTargetTokens };
  }
  const maxOutputTokens = compactorOutputCap(strategy, options.policy.summaryTargetTokens);
  const request = compactorRequest({
    transcript: options.transcript,
    end: tailStart,
    redact: options.redact,
    maxOutputTokens,
    ...(options.focus === undefined ? {} : { focus: options.focus }),
  });
  const estimate = await strategy.compactor.estimateRequestTokens(request);
  return {
    inputTokens: estimate.tokens,
    outputTokens: maxOutputTokens,
    disclosure: {
      provider: strategy.compactor.provider,
      modelId: strategy.compactor.modelId,
      estimatedInputTokens: estimate.tokens,
      maxOutputTokens,
    },
  };
}

/** A strategy that failed and was replaced by `forge-state`. */
export interface StrategyFailure {
  readonly strategy: CompactionStrategyName;
  readonly reason: string;
  readonly message: string;
  readonly error: ErrorSummary;
}

export type StrategyOutcome =
  /** `built` undefined: use the deterministic checkpoint (the default, or after `failures`). */
  | {
      readonly kind: 'built';
      readonly built?: BuiltCheckpoint;
      readonly estimate?: TokenEstimate;
      readonly failures: readonly StrategyFailure[];
    }
  /** Cancelled: nothing is installed and nothing falls back. */
  | { readonly kind: 'failed'; readonly reason: string; readonly message: string; readonly error: ErrorSummary };

export interface StrategyContext {
  /** The deterministic checkpoint of the chosen range: the fallback, and the base of the others. */
  readonly base: ForgeStateCheckpoint;
  readonly tailStart: number;
  readonly caps: CheckpointCaps;
  readonly estimate: (request: ModelRequest) => Promise<TokenEstimate>;
  readonly budgetOf: (estimate: TokenEstimate) => ContextBudget;
  readonly withCheckpoint: (built: BuiltCheckpoint) => ModelRequest;
}

function failure(strategy: CompactionStrategyName, reason: string, message: string, cause?: unknown): StrategyFailure {
  return {
    strategy,
    reason,
    message,
    error: cause === undefined ? { code: `compaction_${reason}`, message, isRetryable: false } : summarizeError(cause),
  };
}

/** Validates a strategy's checkpoint and sizes the request it gives; a failure means falling back. */
async function accept(
  options: CompactTranscriptOptions,
  context: StrategyContext,
  built: BuiltCheckpoint,
): Promise<StrategyOutcome> {
  const strategy = built.checkpoint.strategy;
  const validation = validateCheckpoint(built.checkpoint, options.transcript.length, context.caps);
  if (!validation.ok) {
    return {
      kind: 'built',
      failures: [
        failure(
          strategy,
          'validation',
          `the ${strategy} checkpoint failed validation: ${validation.errors.slice(0, 3).join('; ')}`,
        ),
      ],
    };
  }
  const estimate = await context.estimate(context.withCheckpoint(built));
  if (compactionRequired(options.trigger) && context.budgetOf(estimate).overBudget) {
    return {
      kind: 'built',
      failures: [
        failure(
          strategy,
          'too_large',
          `the ${strategy} checkpoint leaves the request over budget; the smaller deterministic one is used`,
        ),
      ],
    };
  }
  return { kind: 'built', built: withViewTokens(built, estimate.categories.checkpoint), estimate, failures: [] };
}

async function modelStructured(
  options: CompactTranscriptOptions,
  context: StrategyContext,
  setting: Extract<CompactionStrategySetting, { kind: 'model-structured' }>,
): Promise<StrategyOutcome> {
  const maxOutputTokens = compactorOutputCap(setting, options.policy.summaryTargetTokens);
  const request = compactorRequest({
    transcript: options.transcript,
    end: context.tailStart,
    redact: options.redact,
    maxOutputTokens,
    ...(options.focus === undefined ? {} : { focus: options.focus }),
  });
  const outcome = await runCompactor({
    compactor: setting.compactor,
    request,
    signal: options.signal,
    timeoutMs: setting.timeoutMs ?? DEFAULT_COMPACTOR_TIMEOUT_MS,
  });
  if (!outcome.ok) {
    if (outcome.reason === 'cancelled')
      return {
        kind: 'failed',
        reason: 'cancelled',
        message: outcome.message,
        error: { code: 'cancelled', message: outcome.message, isRetryable: false },
      };
    return { kind: 'built', failures: [failure('model-structured', outcome.reason, outcome.message, outcome.cause)] };
  }
  const problems = structuredSummaryInconsistencies(outcome.summary, context.base.state);
  if (problems.length > 0)
    return {
      kind: 'built',
      failures: [
        failure(
          'model-structured',
          'validation',
          `the compactor's summary is inconsistent: ${problems.slice(0, 3).join('; ')}`,
        ),
      ],
    };
  return accept(options, context, withStructuredSummary(context.base, outcome.summary, options.redact, context.caps));
}

async function providerNative(options: CompactTranscriptOptions, context: StrategyContext): Promise<StrategyOutcome> {
  const { model } = options;
  const label = `${model.provider}:${model.modelId}`;
  if (model.capabilities.nativeCompaction !== 'opaque-provider-item' || model.compact === undefined) {
    return {
      kind: 'built',
      failures: [failure('provider-native', 'unsupported', `${label} offers no native compaction`)],
    };
  }
  const prefix = options.transcript.slice(0, context.tailStart).map((entry) => entry.message);
  const previous = chainable(options.request.nativeState, model, prefix);
  const messages = previous === undefined ? prefix : prefix.slice(previous.sourceMessages);
  let state;
  try {
    state = await model.compact(
      { instructions: options.request.instructions, messages, ...(previous === undefined ? {} : { previous }) },
      { signal: options.signal },
    );
  } catch (error) {
    if (options.signal.aborted)
      return {
        kind: 'failed',
        reason: 'cancelled',
        message: `the native compaction by ${label} was cancelled`,
        error: summarizeError(error),
      };
    return {
      kind: 'built',
      failures: [
        failure('provider-native', 'provider', `${label} failed to compact: ${summarizeError(error).message}`, error),
      ],
    };
  }
  const bound =
    state.provider === model.provider &&
    state.modelId === model.modelId &&
    state.sourceHash === hashMessages(messages) &&
    state.sourceMessages === messages.length &&
    state.previousItemHash === (previous?.itemHash ?? null);
  if (!bound) {
    return {
      kind: 'built',
      failures: [
        failure(
          'provider-native',
          'provider',
          `${label} returned compaction state bound to other messages or another model`,
        ),
      ],
    };
  }
  // A chained state stands for the whole prefix: the previous item and the messages after it.
  const covering =
    previous === undefined ? state : { ...state, sourceHash: hashMessages(prefix), sourceMessages: prefix.length };
  return accept(options, context, withNativeState(context.base, covering, context.caps));
}

/**
 * The state of the previous boundary, when the new compaction can be made from it: the same
 * provider and model, and standing for the first messages of the new prefix. Chaining sends the
 * provider its own item instead of the messages it already compacted.
 */
function chainable(
  state: OpaqueProviderState | undefined,
  model: ModelAdapter,
  prefix: readonly Message[],
): OpaqueProviderState | undefined {
  if (state === undefined || state.provider !== model.provider || state.modelId !== model.modelId) return undefined;
  if (state.sourceMessages === 0 || state.sourceMessages >= prefix.length) return undefined;
  return hashMessages(prefix.slice(0, state.sourceMessages)) === state.sourceHash ? state : undefined;
}

/** Builds the checkpoint with the configured strategy; see {@link CompactionStrategySetting}. */
export async function runStrategy(
  options: CompactTranscriptOptions,
  context: StrategyContext,
): Promise<StrategyOutcome> {
  const { strategy } = options;
  if (strategy.kind === 'model-structured') return modelStructured(options, context, strategy);
  if (strategy.kind === 'provider-native') return providerNative(options, context);
  return { kind: 'built', failures: [] };
}
