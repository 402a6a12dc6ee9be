import type { ModelAdapter, TokenEstimate } from '../model/adapter.js';
import type { CostGateDecision } from './cost-gate.js';
import { evaluateCompactionGate } from './priced-cost-gate.js';

/** What the run knows of the provider's cache before a step (see `PromptCacheObservation`). */
export interface ProjectionCacheState {
  readonly readTokens?: number;
  readonly idleMs?: number;
}

/**
 * The priced gate of a projection made because the threshold was passed (not because the request
 * would not fit): the same gate as a compaction's, with no compactor to pay. Projecting rewrites
 * every message after the first projected output, so a warm cache of the request is lost; it is
 * worth that only when the smaller requests that follow save more.
 */
export function projectionGate(
  model: ModelAdapter,
  before: TokenEstimate,
  afterTokens: number,
  cache: ProjectionCacheState,
): CostGateDecision {
  const { prices, promptCache } = model.capabilities;
  return evaluateCompactionGate({
    reclaimedTokens: before.tokens - afterTokens,
    afterTokens,
    compactorInputTokens: 0,
    compactorOutputTokens: 0,
    before: before.categories,
    ...(cache.readTokens === undefined ? {} : { cacheReadTokens: cache.readTokens }),
    ...(cache.idleMs === undefined ? {} : { idleMs: cache.idleMs }),
    ...(prices === undefined ? {} : { prices }),
    ...(promptCache === undefined ? {} : { promptCache }),
  });
}
