import type { PriceSheet } from '@forge/core';
import { describePriceSource, formatRate } from '@forge/core/pricing';

/** A model's prices as table cells: per million tokens, `—` where there is no rate. */
export interface PriceColumns {
  readonly input: string;
  readonly cached: string;
  readonly cacheWrite: string;
  readonly output: string;
  /** `capability table, as of 2026-12-01, https://…`, `configuration, <file>`, or `no prices (tokens only)`. */
  readonly source: string;
}

/** The headers of the four rate columns, per million tokens. */
export const PRICE_COLUMN_HEADERS = ['$/1M IN', 'CACHED', 'WRITE', 'OUT'] as const;

/**
 * The price columns of `forge models list`: one place decides how a rate and a missing price read. Cached and write rates a sheet leaves out
 * are billed at the input rate, and say so with `= in`.
 */
export function priceColumns(prices: PriceSheet | undefined): PriceColumns {
  if (prices === undefined)
    return { input: '—', cached: '—', cacheWrite: '—', output: '—', source: 'no prices (tokens only)' };
  return {
    input: formatRate(prices.inputPerMillion),
    cached: prices.cachedInputPerMillion === undefined ? '= in' : formatRate(prices.cachedInputPerMillion),
    cacheWrite: prices.cacheWritePerMillion === undefined ? '= in' : formatRate(prices.cacheWritePerMillion),
    output: formatRate(prices.outputPerMillion),
    source: describePriceSource(prices),
  };
}
