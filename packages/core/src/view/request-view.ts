import { computeContextBudget, type ContextBudget } from '../budget/budget.js';
import type { ContextCapabilities } from '../budget/capabilities.js';
import type { ContextMode, ContextPolicy } from '../budget/policy.js';
import { ForgeError, InvalidInputError } from '../errors.js';
import type { Message, UserMessage } from '../messages.js';
import type { ModelAdapter, ModelRequest, TokenEstimate, ToolDefinition } from '../model/adapter.js';
import type { OpaqueProviderState } from '../model/opaque-state.js';

/*
 * What a request sends: the one place that decides it. Sessions, `runAgent`'s per-step
 * preflight, `forge context`, `forge checkpoint show`, `compact --dry-run` and the REPL all
 * follow this rule:
 *
 *   1. Every stored message before the current request is in the request, verbatim or inside the
 *      checkpoint it carries. Nothing is left out (`omitted` is 0, and checked).
 *   2. Only mode `compact` carries a checkpoint. `off`, `warn` and `shadow` send the whole
 *      transcript verbatim, whatever is stored.
 *   3. Mode `compact` sends the active checkpoint and every message after it while the request is
 *      estimated at or below `compactAtRatio` of the available input. Above it, a compaction is
 *      due: older turns become the checkpoint and the request comes back to `compactTargetRatio`.
 *   4. A request that cannot fit is not sent: in `compact` when what must be sent (instructions,
 *      request, tools, this run's messages) is too large; in the other modes when the whole
 *      request is.
 *
 * Token counts always come from the model adapter's estimator.
 */

/** A checkpoint a view can be built on: what it covers and what the model receives for it. */
export interface RequestViewCheckpoint {
  readonly id: string;
  /** Messages `[0, coveredThrough)` of the transcript are summarized by it. */
  readonly coveredThrough: number;
  /** The rendered view the model receives. */
  readonly text: string;
  /** Provider-native state standing for `[0, coveredThrough)`, replayed by the adapter that made it. */
  readonly nativeState?: OpaqueProviderState;
}

/** Which stored messages a request carries, and how. */
export interface ViewRange {
  /** The checkpoint the request carries: the active one in mode `compact`, none in other modes. */
  readonly checkpoint?: RequestViewCheckpoint;
  /** Messages `[0, coveredThrough)` are inside the checkpoint; 0 without one. */
  readonly coveredThrough: number;
  /** Messages `[tailStart, end)` are sent verbatim. Always equal to `coveredThrough`. */
  readonly tailStart: number;
  /** The number of stored messages. */
  readonly end: number;
  /** Stored messages neither inside the checkpoint nor sent verbatim: 0 by construction. */
  readonly omitted: 0;
  /** A checkpoint was given but this mode does not send checkpoints. */
  readonly unusedCheckpoint?: { readonly id: string; readonly mode: ContextMode };
}

/** What a view decided about the request it built. */
export type ViewDecision =
  /** Send it as it is. */
  | { readonly kind: 'send' }
  /**
   * Mode `compact`: compact before sending. `threshold` — the request is above `compactAtTokens`
   * but fits (a cost gate may decline, and then it is sent whole); `over_budget` — it does not fit,
   * so it is compacted whatever it costs.
   */
  | { readonly kind: 'compact'; readonly trigger: 'threshold' | 'over_budget' }
  /**
   * Nothing may be sent. `mandatory_context` — instructions, request, tools and this run's messages
   * alone are too large; `whole_history` — a mode that never compacts cannot send the whole
   * conversation.
   */
  | { readonly kind: 'cannot_fit'; readonly reason: 'mandatory_context' | 'whole_history' };

/** The parts of a request that do not come from the stored conversation. */
export interface FixedRequestParts {
  readonly instructions: string;
  /** The user message the request answers; an empty one to measure the next turn. */
  readonly currentRequest: UserMessage;
  /** Messages the running turn has produced so far. */
  readonly continuation?: readonly Message[];
  readonly tools: readonly ToolDefinition[];
  readonly maxOutputTokens?: number;
}

export interface RequestViewInput {
  /** The stored conversation before the current request, oldest first. */
  readonly transcript: readonly Message[];
  /** The session's active checkpoint, if it has one (used in mode `compact` only). */
  readonly checkpoint?: RequestViewCheckpoint;
  readonly policy: ContextPolicy;
  /** Its estimator counts the request; its capabilities give the window. */
  readonly model: ModelAdapter;
  readonly fixed: FixedRequestParts;
}

/** The request a view sends, its budget by the adapter's estimator, and what to do with it. */
export interface RequestView extends ViewRange {
  readonly request: ModelRequest;
  readonly budget: ContextBudget;
  readonly decision: ViewDecision;
}

/** The view of a request as budget events record it. */
export type ViewSummary = {
  readonly checkpointId?: string;
  /** Stored messages inside the checkpoint. */
  readonly coveredMessages: number;
  /** Stored messages sent verbatim. */
  readonly verbatimMessages: number;
  /** Stored messages in neither: always 0. */
  readonly omitted: 0;
};

/**
 * A view would leave stored messages out of a request. Never expected: it means a bug in Forge,
 * and the request is not sent rather than sent with a hole in it.
 */
export class ViewHoleError extends ForgeError {
  constructor(message: string) {
    super({
      code: 'internal_view_hole',
      message: `${message} This is a bug in Forge: nothing was sent.`,
      isRetryable: false,
    });
    this.name = 'ViewHoleError';
  }
}

/**
 * Checks that `covered` messages inside a checkpoint and `verbatim` messages sent after them
 * account for all `stored` messages, and returns the view's summary. Throws {@link ViewHoleError}
 * otherwise.
 */
export function summarizeView(input: {
  readonly stored: number;
  readonly covered: number;
  readonly verbatim: number;
  readonly checkpointId?: string;
}): ViewSummary {
  const omitted = input.stored - input.covered - input.verbatim;
  if (omitted !== 0 || input.covered < 0 || input.verbatim < 0) {
    throw new ViewHoleError(
      `A request would carry ${input.covered} summarized and ${input.verbatim} verbatim messages of a conversation of ${input.stored}: ${omitted} would be left out.`,
    );
  }
  return {
    ...(input.checkpointId === undefined ? {} : { checkpointId: input.checkpointId }),
    coveredMessages: input.covered,
    verbatimMessages: input.verbatim,
    omitted: 0,
  };
}

/** Which stored messages a request of `mode` carries: the checkpoint (mode `compact` only) and everything after it. */
export function selectViewRange(input: {
  readonly messageCount: number;
  readonly checkpoint?: RequestViewCheckpoint;
  readonly mode: ContextMode;
}): ViewRange {
  const { messageCount, checkpoint, mode } = input;
  if (
    checkpoint !== undefined &&
    !(
      Number.isInteger(checkpoint.coveredThrough) &&
      checkpoint.coveredThrough >= 0 &&
      checkpoint.coveredThrough <= messageCount
    )
  ) {
    throw new InvalidInputError({
      message: `Checkpoint ${checkpoint.id} covers messages [0, ${String(checkpoint.coveredThrough)}) of a transcript of ${messageCount}; it cannot be used for this transcript.`,
    });
  }
  const used = mode === 'compact' ? checkpoint : undefined;
  const coveredThrough = used?.coveredThrough ?? 0;
  return {
    ...(used === undefined ? {} : { checkpoint: used }),
    coveredThrough,
    tailStart: coveredThrough,
    end: messageCount,
    omitted: 0,
    ...(checkpoint !== undefined && used === undefined ? { unusedCheckpoint: { id: checkpoint.id, mode } } : {}),
  };
}

/** The history a view sends: the messages after the checkpoint; with replayed native state, all of them (the adapter replaces the covered ones). */
export function viewHistory(range: ViewRange, transcript: readonly Message[]): readonly Message[] {
  if (range.checkpoint === undefined) return transcript;
  return range.checkpoint.nativeState === undefined ? transcript.slice(range.tailStart) : transcript;
}

/**
 * The rule for a measured request (the numbers are the adapter's estimate). Mode `compact`:
 * compact above `compactAtTokens`, or when over budget; cannot fit when mandatory context alone
 * does not. Other modes: send when the whole request fits, else cannot fit.
 */
export function decideRequest(budget: ContextBudget): ViewDecision {
  if (budget.mode === 'compact') {
    if (budget.mandatoryTokens > budget.availableInputTokens)
      return { kind: 'cannot_fit', reason: 'mandatory_context' };
    if (budget.overBudget) return { kind: 'compact', trigger: 'over_budget' };
    if (budget.estimate.tokens > budget.compactAtTokens) return { kind: 'compact', trigger: 'threshold' };
    return { kind: 'send' };
  }
  if (budget.mandatoryTokens > budget.availableInputTokens) return { kind: 'cannot_fit', reason: 'mandatory_context' };
  if (budget.overBudget) return { kind: 'cannot_fit', reason: 'whole_history' };
  return { kind: 'send' };
}

/** The budget of `request` by the model's own estimator. */
export async function budgetRequest(
  model: ModelAdapter,
  request: ModelRequest,
  policy: ContextPolicy,
): Promise<ContextBudget> {
  return budgetOfEstimate(model, request, await model.estimateRequestTokens(request), policy);
}

/** {@link budgetRequest} for a request already estimated. */
export function budgetOfEstimate(
  model: ModelAdapter,
  request: ModelRequest,
  estimate: TokenEstimate,
  policy: ContextPolicy,
): ContextBudget {
  return computeContextBudget({
    capabilities: model.capabilities as ContextCapabilities,
    estimate,
    policy,
    ...(request.maxOutputTokens === undefined ? {} : { requestedOutputTokens: request.maxOutputTokens }),
  });
}

/**
 * The request the next step would send for this transcript, checkpoint and mode, measured by the
 * model's estimator, with the decision {@link decideRequest} takes on it. No file system, no
 * provider call: the same inputs give the same view.
 */
export async function selectRequestView(input: RequestViewInput): Promise<RequestView> {
  const { transcript, policy, model, fixed } = input;
  const range = selectViewRange({
    messageCount: transcript.length,
    mode: policy.mode,
    ...(input.checkpoint === undefined ? {} : { checkpoint: input.checkpoint }),
  });
  const request: ModelRequest = {
    instructions: fixed.instructions,
    ...(range.checkpoint === undefined ? {} : { checkpoint: range.checkpoint.text }),
    history: viewHistory(range, transcript),
    currentRequest: fixed.currentRequest,
    continuation: fixed.continuation ?? [],
    tools: fixed.tools,
    ...(fixed.maxOutputTokens === undefined ? {} : { maxOutputTokens: fixed.maxOutputTokens }),
    ...(range.checkpoint?.nativeState === undefined ? {} : { nativeState: range.checkpoint.nativeState }),
  };
  const budget = await budgetRequest(model, request, policy);
  return { ...range, request, budget, decision: decideRequest(budget) };
}
