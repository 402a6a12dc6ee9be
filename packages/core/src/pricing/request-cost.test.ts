import { describe, expect, it } from 'vitest';
import type { PriceSheet } from './price-sheet.js';
import { OPENAI_PROMPT_CACHE } from './prompt-cache.js';
import { cachedInputTokens, estimateRequestCost, priceInput } from './request-cost.js';

const prices: PriceSheet = {
  currency: 'USD',
  inputPerMillion: 2,
  cachedInputPerMillion: 0.2,
  outputPerMillion: 8,
  source: 'config',
};

describe('estimateRequestCost', () => {
  it('prices the input cold and warm and bounds the output by the reserve', () => {
    const estimate = estimateRequestCost({
      prices,
      inputTokens: 100_000,
      sharedPrefixTokens: 90_000,
      reservedOutputTokens: 4096,
    });
    expect(estimate.coldInput).toBeCloseTo(0.2, 12);
    expect(estimate.cacheableTokens).toBe(90_000);
    expect(estimate.warmInput).toBeCloseTo(0.02 + 0.018, 12);
    expect(estimate.outputUpTo).toBeCloseTo(0.032768, 12);
  });

  it('rounds the warm share down to what the provider caches', () => {
    const estimate = estimateRequestCost({
      prices,
      inputTokens: 1500,
      sharedPrefixTokens: 1200,
      reservedOutputTokens: 0,
      promptCache: OPENAI_PROMPT_CACHE,
    });
    expect(estimate.cacheableTokens).toBe(1152);
    const short = estimateRequestCost({
      prices,
      inputTokens: 900,
      sharedPrefixTokens: 900,
      reservedOutputTokens: 0,
      promptCache: OPENAI_PROMPT_CACHE,
    });
    expect(short.cacheableTokens).toBe(0);
    expect(short.warmInput).toBe(short.coldInput);
  });

  it('prices the input not read from the cache as a cache write, at the input rate for a sheet that bills no writes', () => {
    expect(priceInput(prices, 100_000, 90_000)).toBeCloseTo((10_000 * 2 + 90_000 * 0.2) / 1e6, 12);
    const withWrites: PriceSheet = { ...prices, cacheWritePerMillion: 2.5 };
    expect(priceInput(withWrites, 100_000, 90_000)).toBeCloseTo((10_000 * 2.5 + 90_000 * 0.2) / 1e6, 12);
    const estimate = estimateRequestCost({
      prices: withWrites,
      inputTokens: 100_000,
      sharedPrefixTokens: 90_000,
      reservedOutputTokens: 0,
    });
    expect(estimate.coldInput).toBeCloseTo(priceInput(withWrites, 100_000, 0), 12);
    expect(estimate.warmInput).toBeCloseTo(priceInput(withWrites, 100_000, 90_000), 12);
  });

  it('reads from the cache at most the shared prefix, rounded down by the rules when they are known', () => {
    expect(cachedInputTokens(1200, 1500, OPENAI_PROMPT_CACHE)).toBe(1152);
    expect(cachedInputTokens(1200, 1000, undefined)).toBe(1000);
    expect(cachedInputTokens(-5, 1000, undefined)).toBe(0);
  });
});
