import { describe, expect, it } from 'vitest';
import type { TokenCategories } from '../model/adapter.js';
import type { PriceSheet } from '../pricing/price-sheet.js';
import { OPENAI_PROMPT_CACHE, type PromptCacheRules } from '../pricing/prompt-cache.js';
import { evaluateCostGate } from './cost-gate.js';
import { evaluateCompactionGate, type CompactionGateInput } from './priced-cost-gate.js';

const openai: PriceSheet = {
  currency: 'USD',
  inputPerMillion: 1.25,
  cachedInputPerMillion: 0.125,
  outputPerMillion: 10,
  source: 'table',
};
const deepseek: PriceSheet = {
  currency: 'USD',
  inputPerMillion: 0.3,
  cachedInputPerMillion: 0.006,
  outputPerMillion: 1.2,
  source: 'table',
};
const deepseekCache: PromptCacheRules = { minimumTokens: 64, incrementTokens: 64, lifetimeMs: 60 * 60_000 };

function categories(history: number, checkpoint = 0): TokenCategories {
  return {
    instructions: 5_000,
    toolSchemas: 3_000,
    checkpoint,
    history,
    request: 1_500,
    continuation: 0,
    overhead: 500,
  };
}

/** A threshold compaction of a request whose history is all cached, keeping `afterTokens`. */
function gate(afterTokens: number, history: number, extra: Partial<CompactionGateInput> = {}): CompactionGateInput {
  const before = categories(history);
  const beforeTokens = Object.values(before).reduce((total, tokens) => total + tokens, 0);
  return {
    reclaimedTokens: beforeTokens - afterTokens,
    afterTokens,
    compactorInputTokens: 0,
    compactorOutputTokens: 0,
    before,
    prices: openai,
    promptCache: OPENAI_PROMPT_CACHE,
    idleMs: 20_000,
    ...extra,
  };
}

describe('the priced cost gate', () => {
  it('declines a compaction that would only save cached tokens, though it reclaims enough tokens for the token gate', () => {
    // 100k tokens, 90k of them cached history, cut to 60k: the 40k saved were cached (0.125/M) while the new 52k prefix is re-priced at 1.25/M.
    const input = gate(60_000, 90_000);
    expect(evaluateCostGate(input).compact).toBe(true);
    const decision = evaluateCompactionGate(input);
    expect(decision).toMatchObject({ compact: false, basis: 'priced', priced: { cache: 'warm', horizonRequests: 5 } });
    const priced = decision.priced;
    expect(priced?.savingUsd).toBeLessThan(priced?.invalidationUsd ?? 0);
    expect(priced?.netUsd).toBeLessThan(0);
  });

  it('makes the same compaction when the cache is cold: nothing cached is lost', () => {
    const decision = evaluateCompactionGate(gate(60_000, 90_000, { idleMs: OPENAI_PROMPT_CACHE.lifetimeMs + 1 }));
    expect(decision).toMatchObject({
      compact: true,
      basis: 'priced',
      priced: { cache: 'cold', invalidationUsd: 0, cachedBeforeTokens: 0 },
    });
  });

  it('always compacts a request that does not fit, and still records the priced numbers', () => {
    const decision = evaluateCompactionGate(gate(60_000, 90_000, { required: true }));
    expect(decision).toMatchObject({ compact: true, required: true, basis: 'priced' });
    expect(decision.priced?.netUsd).toBeLessThan(0);
  });

  it('compacts a large cached history into a small view: later requests are cached again and much smaller', () => {
    const decision = evaluateCompactionGate(gate(30_000, 220_000));
    expect(decision.compact).toBe(true);
    expect(decision.priced?.invalidationUsd).toBeGreaterThan(0);
    expect(decision.priced?.savingUsd).toBeGreaterThan(
      (decision.priced?.invalidationUsd ?? 0) + (decision.priced?.riskAllowanceUsd ?? 0),
    );
  });

  it('charges the compactor at its own prices', () => {
    const free = evaluateCompactionGate(gate(30_000, 220_000));
    const costly = evaluateCompactionGate(
      gate(30_000, 220_000, {
        compactorInputTokens: 220_000,
        compactorOutputTokens: 4_000,
        compactor: { prices: { ...openai, inputPerMillion: 15, outputPerMillion: 120 } },
      }),
    );
    expect(costly.priced?.compactorUsd).toBeCloseTo((220_000 * 15 + 4_000 * 120) / 1e6, 9);
    expect(costly.priced?.netUsd).toBeCloseTo((free.priced?.netUsd ?? 0) - (costly.priced?.compactorUsd ?? 0), 9);
    expect(costly.compact).toBe(false);
  });

  it('waits longer where a cache hit is cheaper (DeepSeek, 2 % of a miss): the same cut pays only after the horizon, or once the cache is cold', () => {
    const deepseekGate = (extra: Partial<CompactionGateInput> = {}) =>
      evaluateCompactionGate(gate(30_000, 220_000, { prices: deepseek, promptCache: deepseekCache, ...extra }));
    expect(evaluateCompactionGate(gate(30_000, 220_000)).compact).toBe(true);
    expect(deepseekGate().compact).toBe(false);
    expect(deepseekGate({ horizonTurns: 10 }).compact).toBe(true);
    expect(deepseekGate({ idleMs: deepseekCache.lifetimeMs + 1 })).toMatchObject({
      compact: true,
      priced: { cache: 'cold', invalidationUsd: 0 },
    });
  });

  it('makes a cut it would decline on a warm cache once the checkpoint changed: only the instructions and tool schemas are still cached', () => {
    const changed = evaluateCompactionGate(gate(60_000, 90_000, { checkpointChanged: true, cacheReadTokens: 95_000 }));
    expect(changed).toMatchObject({
      compact: true,
      priced: { cache: 'warm', invalidationUsd: 0, cachedBeforeTokens: 7_936, stablePrefixTokens: 8_000 },
    });
    const deepseekChanged = evaluateCompactionGate(
      gate(30_000, 220_000, { prices: deepseek, promptCache: deepseekCache, checkpointChanged: true }),
    );
    expect(deepseekChanged).toMatchObject({ compact: true, priced: { invalidationUsd: 0 } });
    expect(evaluateCompactionGate(gate(99_000, 90_000, { checkpointChanged: true })).compact).toBe(false);
  });

  it('treats the cache as warm when the time of the last request is unknown', () => {
    const { idleMs: _idle, ...unknown } = gate(60_000, 90_000);
    expect(evaluateCompactionGate(unknown)).toMatchObject({ compact: false, priced: { cache: 'warm' } });
  });

  it('falls back to the token gate without prices, and says so', () => {
    const { prices: _prices, ...unpriced } = gate(60_000, 90_000);
    expect(evaluateCompactionGate(unpriced)).toMatchObject({
      compact: true,
      basis: 'tokens',
      note: 'the model has no prices, so the gate compared tokens',
    });
    expect(evaluateCompactionGate({ ...gate(60_000, 90_000), compactor: {}, compactorInputTokens: 10 })).toMatchObject({
      basis: 'tokens',
      note: 'the compactor model has no prices, so the gate compared tokens',
    });
    expect(evaluateCompactionGate({ ...unpriced, reclaimedTokens: 10, required: true })).toMatchObject({
      compact: true,
      required: true,
      basis: 'tokens',
    });
  });
});
