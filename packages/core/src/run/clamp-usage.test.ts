import { describe, expect, it } from 'vitest';
import { clampUsage } from './model-step.js';
import type { Usage } from '../model/adapter.js';

const usage = (fields: Partial<Usage>): Usage => ({
  inputTokens: undefined,
  cacheReadTokens: undefined,
  cacheWriteTokens: undefined,
  outputTokens: undefined,
  reasoningTokens: undefined,
  ...fields,
});

describe('clampUsage', () => {
  it('passes a possible report through unchanged', () => {
    const reported = usage({ inputTokens: 2_000, cacheReadTokens: 1_500, outputTokens: 40 });
    expect(clampUsage(reported, 400_000)).toEqual({ usage: reported });
  });

  it('prices an input count above the window as one window, and says so', () => {
    const checked = clampUsage(usage({ inputTokens: 1e15, cacheReadTokens: 1e15, outputTokens: 3 }), 400_000);
    expect(checked.usage).toMatchObject({ inputTokens: 400_000, cacheReadTokens: 400_000, outputTokens: 3 });
    expect(checked.problem).toContain('1,000,000,000,000,000 input tokens for a 400,000-token window');
  });

  it('takes a negative or non-numeric count as not reported', () => {
    const checked = clampUsage(usage({ inputTokens: -5, outputTokens: Number.NaN, reasoningTokens: 2 }), 1_000);
    expect(checked.usage).toMatchObject({ inputTokens: undefined, outputTokens: undefined });
    expect(checked.problem).toContain('-5 input tokens');
  });

  it('clamps a part above its whole to the whole', () => {
    const checked = clampUsage(usage({ inputTokens: 100, cacheReadTokens: 10_000_000 }));
    expect(checked.usage.cacheReadTokens).toBe(100);
    expect(checked.problem).toContain('10,000,000 cached input tokens of 100');
  });
});
