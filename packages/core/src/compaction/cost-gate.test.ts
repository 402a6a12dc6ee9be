import { describe, expect, it } from 'vitest';
import { cacheRewriteTokens, evaluateCostGate } from './cost-gate.js';

const before = {
  instructions: 1_000,
  checkpoint: 2_000,
  history: 50_000,
  request: 100,
  continuation: 0,
  toolSchemas: 3_000,
  overhead: 50,
};

describe('the cost gate', () => {
  it('compacts only when reclaimed × N exceeds compactor tokens plus the cache rewrite', () => {
    expect(
      evaluateCostGate({ reclaimedTokens: 40_000, compactorInputTokens: 0, compactorOutputTokens: 0, before }),
    ).toMatchObject({
      compact: true,
      expectedSavingsTokens: 200_000,
      cacheRewriteTokens: 52_000,
      costTokens: 52_000,
    });
    expect(
      evaluateCostGate({ reclaimedTokens: 10_000, compactorInputTokens: 0, compactorOutputTokens: 0, before }).compact,
    ).toBe(false);
    expect(
      evaluateCostGate({ reclaimedTokens: 40_000, compactorInputTokens: 150_000, compactorOutputTokens: 2_400, before })
        .compact,
    ).toBe(false);
    expect(
      evaluateCostGate({
        reclaimedTokens: 10_000,
        compactorInputTokens: 0,
        compactorOutputTokens: 0,
        before,
        horizonTurns: 10,
      }).compact,
    ).toBe(true);
  });

  it('counts as rewritten only the cached prefix beyond instructions and tool schemas', () => {
    expect(cacheRewriteTokens(before, undefined)).toBe(52_000);
    expect(cacheRewriteTokens(before, 3_500)).toBe(0);
    expect(cacheRewriteTokens(before, 14_000)).toBe(10_000);
    expect(cacheRewriteTokens(before, 900_000)).toBe(52_000);
  });

  it('counts nothing as rewritten when the checkpoint changed since the last request: the cache after the stable prefix is gone already', () => {
    expect(cacheRewriteTokens(before, 900_000, true)).toBe(0);
    expect(cacheRewriteTokens(before, undefined, true)).toBe(0);
  });
});
