import type { CapabilitySource, TokenEstimate } from '../model/adapter.js';
import type { ContextCapabilities } from './capabilities.js';
import type { ContextMode, ContextPolicy } from './policy.js';

/**
 * What preflight decided for one request. `off`: it fits and mode `off` takes no warning
 * decision; `limit_reached`: it must not be sent (see {@link computeContextBudget}).
 */
export type BudgetDecision = 'ok' | 'warn' | 'limit_reached' | 'off';

/** The budget of one request: every number `forge context` and `context.budgeted` show. A type alias, not an interface, so events built from it stay plain JSON records. */
export type ContextBudget = {
  readonly mode: ContextMode;
  readonly decision: BudgetDecision;
  readonly contextWindowTokens: number;
  readonly windowSource: CapabilitySource;
  /** The provider's own input cap, when it has one. */
  readonly maxInputTokens?: number;
  readonly estimate: TokenEstimate;
  /** Output tokens asked for: the request's `maxOutputTokens`, else the policy's reserve, capped at the model's maximum output. */
  readonly requestedOutputTokens: number;
  readonly bufferTokens: number;
  /** max(requestedOutputTokens, bufferTokens): subtracted from the window once. */
  readonly reservedTokens: number;
  /** Input the request may use: window − reserve, and at most the input cap − buffer. */
  readonly availableInputTokens: number;
  /** Instructions + current request + tool schemas + continuation + framing: what cannot be dropped. */
  readonly mandatoryTokens: number;
  /** available − mandatory − checkpoint: room left for earlier history. Negative when even that does not fit. */
  readonly remainingHistoryTokens: number;
  /** available − estimate. Negative when the request is over budget. */
  readonly freeTokens: number;
  /** A warning is raised when the estimate passes this many tokens. */
  readonly warnAtTokens: number;
  /** Mode `compact`: above this many tokens the request is compacted before it is sent (⌊available × compactAtRatio⌋). */
  readonly compactAtTokens: number;
  /** Mode `compact`: what a compaction brings the request back down to (⌊available × compactTargetRatio⌋). */
  readonly compactTargetTokens: number;
  /** The whole estimate is above the available input. */
  readonly overBudget: boolean;
};

export interface BudgetInput {
  readonly capabilities: Pick<
    ContextCapabilities,
    'contextWindowTokens' | 'maxOutputTokens' | 'maxInputTokens' | 'source'
  >;
  readonly estimate: TokenEstimate;
  readonly policy: ContextPolicy;
  /** The request's own `maxOutputTokens`, when it sets one. */
  readonly requestedOutputTokens?: number;
}

/** Tokens that must be sent whatever happens to history. */
export function mandatoryTokensOf(estimate: TokenEstimate): number {
  const { instructions, request, toolSchemas, continuation, overhead } = estimate.categories;
  return instructions + request + toolSchemas + continuation + overhead;
}

/**
 * The budget arithmetic, pure:
 *
 *     reserve    = max(requested output, buffer)            — once, not twice
 *     available  = min(window − reserve, input cap − buffer) — the cap only when the model has one
 *     mandatory  = instructions + request + tool schemas + continuation + framing
 *     history room = available − mandatory − checkpoint
 *
 * Decision: `limit_reached` when the request cannot be made to fit — in mode `compact` when
 * mandatory > available (history can still be compacted), in every other mode when the whole
 * estimate > available (they never shorten history); otherwise `off` in mode `off`, `warn` when
 * the estimate is above ⌊available × warnAtRatio⌋, `ok` below.
 */
export function computeContextBudget(input: BudgetInput): ContextBudget {
  const { capabilities, estimate, policy } = input;
  const asked = input.requestedOutputTokens ?? policy.reservedOutputTokens;
  const requestedOutputTokens =
    capabilities.maxOutputTokens === undefined ? asked : Math.min(asked, capabilities.maxOutputTokens);
  const reservedTokens = Math.max(requestedOutputTokens, policy.bufferTokens);
  let availableInputTokens = capabilities.contextWindowTokens - reservedTokens;
  if (capabilities.maxInputTokens !== undefined) {
    availableInputTokens = Math.min(availableInputTokens, capabilities.maxInputTokens - policy.bufferTokens);
  }
  availableInputTokens = Math.max(0, availableInputTokens);

  const mandatoryTokens = mandatoryTokensOf(estimate);
  const warnAtTokens = Math.floor(availableInputTokens * policy.warnAtRatio);
  const mustFit = policy.mode === 'compact' ? mandatoryTokens : estimate.tokens;
  let decision: BudgetDecision;
  if (mustFit > availableInputTokens) decision = 'limit_reached';
  else if (policy.mode === 'off') decision = 'off';
  else if (estimate.tokens > warnAtTokens) decision = 'warn';
  else decision = 'ok';

  return {
    mode: policy.mode,
    decision,
    contextWindowTokens: capabilities.contextWindowTokens,
    windowSource: capabilities.source,
    ...(capabilities.maxInputTokens === undefined ? {} : { maxInputTokens: capabilities.maxInputTokens }),
    estimate,
    requestedOutputTokens,
    bufferTokens: policy.bufferTokens,
    reservedTokens,
    availableInputTokens,
    mandatoryTokens,
    remainingHistoryTokens: availableInputTokens - mandatoryTokens - estimate.categories.checkpoint,
    freeTokens: availableInputTokens - estimate.tokens,
    warnAtTokens,
    compactAtTokens: Math.floor(availableInputTokens * policy.compactAtRatio),
    compactTargetTokens: Math.floor(availableInputTokens * policy.compactTargetRatio),
    overBudget: estimate.tokens > availableInputTokens,
  };
}
