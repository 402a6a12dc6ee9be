import { describe, expect, it } from 'vitest';
import type { PriceSheet } from './price-sheet.js';
import { OPENAI_PROMPT_CACHE } from './prompt-cache.js';
import { estimateRequestCost } from './request-cost.js';

const prices: PriceSheet = { currency: 'USD', inputPerMillion: 2, cachedInputPerMillion: 0.2, outputPerMillion: 8, source: 'config' };

describe('estimateRequestCost', () => {
  it('prices the input cold and warm and bounds the output by the reserve', () => {
    const estimate = estimateRequestCost({ prices, inputTokens: 100_000, sharedPrefixTokens: 90_000, reservedOutputTokens: 4096 });
    expect(estimate.coldInput).toBeCloseTo(0.2, 12);
    expect(estimate.cacheableTokens).toBe(90_000);
    expect(estimate.warmInput).toBeCloseTo(0.02 + 0.018, 12);
    expect(estimate.outputUpTo).toBeCloseTo(0.032768, 12);
  });

  it('rounds the warm share down to what the provider caches', () => {
    const estimate = estimateRequestCost({ prices, inputTokens: 1500, sharedPrefixTokens: 1200, reservedOutputTokens: 0, promptCache: OPENAI_PROMPT_CACHE });
    expect(estimate.cacheableTokens).toBe(1152);
    const short = estimateRequestCost({ prices, inputTokens: 900, sharedPrefixTokens: 900, reservedOutputTokens: 0, promptCache: OPENAI_PROMPT_CACHE });
    expect(short.cacheableTokens).toBe(0);
    expect(short.warmInput).toBe(short.coldInput);
  });
});
