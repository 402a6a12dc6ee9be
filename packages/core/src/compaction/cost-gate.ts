import type { TokenCategories } from '../model/adapter.js';
import type { CompactionTrigger } from './events.js';
import type { PricedGateNumbers } from './priced-cost-gate.js';

/**
 * Whether a compaction for `trigger` is needed for the request to be sent at all (it does not fit,
 * or the provider refused it): the gate still computes and records its numbers but always
 * compacts, and the compacted request must fit.
 */
export function compactionRequired(trigger: CompactionTrigger): boolean {
  return trigger === 'over_budget' || trigger === 'overflow';
}

/** Turns over which a compaction's savings are counted (the `N` of the cost gate). */
export const COST_GATE_HORIZON_TURNS = 5;

/**
 * The numbers behind one cost-gate decision, as events record them: always the token comparison,
 * and with prices the priced one (`priced`), which then decides.
 */
export type CostGateDecision = {
  readonly compact: boolean;
  /** What decided: money (`priced`) or, for a model without prices, tokens. */
  readonly basis: 'priced' | 'tokens';
  /** The request did not fit: the compaction was needed, whatever the numbers say. */
  readonly required?: true;
  /** Why the gate compared tokens. */
  readonly note?: string;
  /** The priced comparison, in US dollars (basis `priced`). */
  readonly priced?: PricedGateNumbers;
  readonly horizonTurns: number;
  /** Tokens the next request no longer sends: estimate before − estimate after. */
  readonly reclaimedTokens: number;
  /** reclaimed × horizon. */
  readonly expectedSavingsTokens: number;
  /** Compactor input + output (0 for `forge-state`, which calls no model). */
  readonly compactionTokens: number;
  /** Cached prompt prefix the compaction invalidates, which the provider must process again. */
  readonly cacheRewriteTokens: number;
  /** compaction + cache rewrite. */
  readonly costTokens: number;
};

export interface CostGateInput {
  readonly reclaimedTokens: number;
  /** Tokens sent to and produced by a compactor model; 0 when no model is called. */
  readonly compactorInputTokens: number;
  readonly compactorOutputTokens: number;
  /** Categories of the request before compaction. */
  readonly before: TokenCategories;
  /** Prompt-cache reads the provider reported for the last step, when it reported any. */
  readonly cacheReadTokens?: number;
  /**
   * The request's checkpoint text differs from the one the last request carried (a fact went
   * SUSPECT): the cache holds the instructions and tool schemas at most, so compacting
   * invalidates nothing.
   */
  readonly checkpointChanged?: boolean;
  readonly horizonTurns?: number;
}

/**
 * The cached prefix a compaction invalidates. A checkpoint replaces what follows the instructions
 * and tool schemas, so everything cached after them is lost: the part of the last reported cache
 * read beyond instructions + tool schemas, at most the old checkpoint + history. Without a
 * reported cache read, the whole old checkpoint + history is assumed cached (the cautious choice).
 * When the checkpoint's text changed since the last request, nothing after the stable prefix is
 * cached: 0.
 */
export function cacheRewriteTokens(
  before: TokenCategories,
  cacheReadTokens: number | undefined,
  checkpointChanged = false,
): number {
  if (checkpointChanged) return 0;
  const replaceable = before.checkpoint + before.history;
  if (cacheReadTokens === undefined) return replaceable;
  const stablePrefix = before.instructions + before.toolSchemas;
  return Math.min(replaceable, Math.max(0, cacheReadTokens - stablePrefix));
}

/**
 * The cost gate for automatic compaction. It compacts only when
 *
 *     reclaimed × N  >  compactor input + compactor output + cache rewrite
 *
 * with N = {@link COST_GATE_HORIZON_TURNS} turns: the tokens the next N requests no longer send
 * must outweigh what the compaction itself costs and the cached prefix it throws away. Manual
 * compaction does not go through the gate. A compaction the request needs in order to be sent
 * ({@link compactionRequired}) does: its numbers are recorded, but it compacts whatever they say.
 */
export function evaluateCostGate(input: CostGateInput): CostGateDecision {
  const horizonTurns = input.horizonTurns ?? COST_GATE_HORIZON_TURNS;
  const reclaimedTokens = Math.max(0, input.reclaimedTokens);
  const expectedSavingsTokens = reclaimedTokens * horizonTurns;
  const compactionTokens = input.compactorInputTokens + input.compactorOutputTokens;
  const rewrite = cacheRewriteTokens(input.before, input.cacheReadTokens, input.checkpointChanged);
  const costTokens = compactionTokens + rewrite;
  return {
    compact: expectedSavingsTokens > costTokens,
    basis: 'tokens',
    horizonTurns,
    reclaimedTokens,
    expectedSavingsTokens,
    compactionTokens,
    cacheRewriteTokens: rewrite,
    costTokens,
  };
}
