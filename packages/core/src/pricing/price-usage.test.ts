import { describe, expect, it } from 'vitest';
import { emptyUsage, type Usage } from '../model/adapter.js';
import { checkPriceSheet, type PriceSheet } from './price-sheet.js';
import { addCost, cacheHitRatio, priceUsage } from './price-usage.js';

const gpt: PriceSheet = {
  currency: 'USD',
  inputPerMillion: 1.25,
  cachedInputPerMillion: 0.125,
  outputPerMillion: 10,
  source: 'table',
  asOf: '2026-12-01',
};
const withWrites: PriceSheet = { ...gpt, cacheWritePerMillion: 1.5625 };
const usage = (fields: Partial<Usage>): Usage => ({ ...emptyUsage, ...fields });

describe('priceUsage', () => {
  it('prices fresh input, cache reads and output at their own rates (cache reads are part of input)', () => {
    const cost = priceUsage(usage({ inputTokens: 100_000, cacheReadTokens: 80_000, outputTokens: 2_000 }), gpt);
    expect(cost?.freshInput).toBeCloseTo(0.025, 12);
    expect(cost?.cachedInput).toBeCloseTo(0.01, 12);
    expect(cost?.cacheWrite).toBe(0);
    expect(cost?.output).toBeCloseTo(0.02, 12);
    expect(cost?.total).toBeCloseTo(0.055, 12);
  });

  it('charges cache writes at the write rate, or as fresh input when the sheet has none', () => {
    const reported = usage({ inputTokens: 10_000, cacheReadTokens: 0, cacheWriteTokens: 8_000, outputTokens: 0 });
    expect(priceUsage(reported, withWrites)?.cacheWrite).toBeCloseTo(0.0125, 12);
    expect(priceUsage(reported, withWrites)?.freshInput).toBeCloseTo(0.0025, 12);
    expect(priceUsage(reported, gpt)?.total).toBeCloseTo(0.0125, 12);
  });

  it('prices cached tokens as fresh input when the provider publishes no discount', () => {
    const pro: PriceSheet = { currency: 'USD', inputPerMillion: 15, outputPerMillion: 120, source: 'table' };
    expect(
      priceUsage(usage({ inputTokens: 1_000_000, cacheReadTokens: 900_000, outputTokens: 0 }), pro)?.total,
    ).toBeCloseTo(15, 9);
  });

  it('switches a whole request to the long-context rates above their threshold', () => {
    const long: PriceSheet = {
      ...gpt,
      longContext: {
        aboveInputTokens: 272_000,
        inputPerMillion: 2.5,
        cachedInputPerMillion: 0.25,
        outputPerMillion: 15,
      },
    };
    expect(priceUsage(usage({ inputTokens: 272_000, outputTokens: 1_000_000 }), long)?.output).toBeCloseTo(10, 9);
    const above = priceUsage(usage({ inputTokens: 300_000, cacheReadTokens: 100_000, outputTokens: 1_000_000 }), long);
    expect(above?.freshInput).toBeCloseTo(0.5, 9);
    expect(above?.cachedInput).toBeCloseTo(0.025, 9);
    expect(above?.output).toBeCloseTo(15, 9);
  });

  it('gives no cost for half a usage record, and never counts more cached than input', () => {
    expect(priceUsage(usage({ inputTokens: 100 }), gpt)).toBeUndefined();
    expect(priceUsage(usage({ outputTokens: 100 }), gpt)).toBeUndefined();
    const odd = priceUsage(
      usage({ inputTokens: 100, cacheReadTokens: 500, cacheWriteTokens: 50, outputTokens: 0 }),
      gpt,
    );
    expect(odd?.freshInput).toBe(0);
    expect(odd?.cachedInput).toBeCloseTo((100 * 0.125) / 1e6, 15);
  });

  it('adds costs field by field', () => {
    const one = priceUsage(usage({ inputTokens: 1_000_000, cacheReadTokens: 500_000, outputTokens: 100_000 }), gpt);
    const sum = one === undefined ? undefined : addCost(one, one);
    expect(sum?.total).toBeCloseTo(2 * (one?.total ?? 0), 12);
    expect(sum?.cachedInput).toBeCloseTo(0.125, 12);
  });

  it('reports the share of input read from the cache', () => {
    expect(cacheHitRatio({ inputTokens: 1000, cacheReadTokens: 640 })).toBe(0.64);
    expect(cacheHitRatio({ inputTokens: 1000, cacheReadTokens: undefined })).toBe(0);
    expect(cacheHitRatio({ inputTokens: undefined, cacheReadTokens: 5 })).toBeUndefined();
  });
});

describe('checkPriceSheet', () => {
  it('names the field of a negative, missing or non-finite rate', () => {
    expect(() => checkPriceSheet({ ...gpt, outputPerMillion: -1 }, 'openai:x')).toThrow(
      /openai:x: outputPerMillion must be a number of dollars ≥ 0, got -1/,
    );
    expect(() => checkPriceSheet({ ...gpt, cachedInputPerMillion: Number.NaN }, 'x')).toThrow(/cachedInputPerMillion/);
    expect(() =>
      checkPriceSheet({ ...gpt, longContext: { aboveInputTokens: 0, inputPerMillion: 1, outputPerMillion: 1 } }, 'x'),
    ).toThrow(/aboveInputTokens/);
    expect(checkPriceSheet(withWrites, 'x')).toBe(withWrites);
  });
});

describe('formatting', () => {
  it('shows dollars with the precision small amounts need', async () => {
    const { formatDollars, describePrices, describePriceSource } = await import('./format.js');
    expect([0, 0.0000004, 0.000412, 0.02134, 0.5, 1, 12.345].map(formatDollars)).toEqual([
      '$0',
      '<$0.000001',
      '$0.000412',
      '$0.0213',
      '$0.5',
      '$1.00',
      '$12.35',
    ]);
    expect(describePrices(gpt)).toBe('$1.25 input · $0.125 cached · $10 output per 1M tokens');
    expect(
      describePrices({
        ...withWrites,
        longContext: { aboveInputTokens: 272_000, inputPerMillion: 2.5, outputPerMillion: 15 },
      }),
    ).toBe(
      '$1.25 input · $0.125 cached · $1.5625 cache write · $10 output per 1M tokens; above 272,000 input tokens $2.5 input · $15 output',
    );
    expect(describePriceSource({ ...gpt, reference: 'https://example.test/pricing' })).toBe(
      'capability table, as of 2026-12-01, https://example.test/pricing',
    );
  });
});
