import { describe, expect, it } from 'vitest';
import type { TokenEstimate } from '../model/adapter.js';
import { createEstimatorAccuracyTracker } from './accuracy-tracker.js';
import { reconcileUsage } from './reconcile.js';

const estimate = (tokens: number): TokenEstimate => ({
  tokens,
  method: 'conservative-fallback',
  confidence: 'estimated',
  categories: {
    instructions: 0,
    checkpoint: 0,
    history: 0,
    request: tokens,
    continuation: 0,
    toolSchemas: 0,
    overhead: 0,
  },
});
const usage = (inputTokens: number | undefined) => ({
  inputTokens,
  cacheReadTokens: undefined,
  cacheWriteTokens: undefined,
  outputTokens: undefined,
  reasoningTokens: undefined,
});

describe('reconcileUsage', () => {
  it('reports the signed error and whether the undercount passed the buffer', () => {
    expect(reconcileUsage(estimate(1100), usage(1000), 50)).toMatchObject({
      errorTokens: 100,
      errorPercent: 10,
      undercountBeyondBuffer: false,
    });
    expect(reconcileUsage(estimate(1000), usage(1050), 50)).toMatchObject({
      errorTokens: -50,
      undercountBeyondBuffer: false,
    });
    expect(reconcileUsage(estimate(1000), usage(1051), 50)).toMatchObject({
      errorTokens: -51,
      undercountBeyondBuffer: true,
    });
    expect(reconcileUsage(estimate(1000), usage(undefined), 50)).toEqual({
      estimatedTokens: 1000,
      undercountBeyondBuffer: false,
    });
  });
});

describe('createEstimatorAccuracyTracker', () => {
  it('keeps running error statistics per provider and model', () => {
    const tracker = createEstimatorAccuracyTracker();
    tracker.record('openai', 'gpt-5', reconcileUsage(estimate(1100), usage(1000), 100));
    tracker.record('openai', 'gpt-5', reconcileUsage(estimate(900), usage(1000), 100));
    tracker.record('deepseek', 'deepseek-v4-pro', reconcileUsage(estimate(1500), usage(1000), 100));
    tracker.record('openai', 'gpt-5', reconcileUsage(estimate(900), usage(undefined), 100));
    expect(tracker.get('openai', 'gpt-5')).toMatchObject({
      samples: 2,
      meanErrorPercent: 0,
      meanAbsoluteErrorPercent: 10,
      maxUndercountTokens: 100,
      unsafeForAutoCompaction: false,
    });
    expect(tracker.get('deepseek', 'deepseek-v4-pro')).toMatchObject({ samples: 1, meanErrorPercent: 50 });
    expect(tracker.all()).toHaveLength(2);
  });

  it('marks a model unsafe at the limit of undercounts beyond the buffer, and says so once', () => {
    const tracker = createEstimatorAccuracyTracker({ undercountLimit: 2 });
    const low = reconcileUsage(estimate(1000), usage(2000), 100);
    expect(tracker.record('m', 'x', low).becameUnsafe).toBe(false);
    const second = tracker.record('m', 'x', low);
    expect(second).toMatchObject({
      becameUnsafe: true,
      accuracy: { unsafeForAutoCompaction: true, undercountsBeyondBuffer: 2 },
    });
    expect(tracker.record('m', 'x', low).becameUnsafe).toBe(false);
    expect(tracker.get('m', 'y')).toBeUndefined();
  });
});
