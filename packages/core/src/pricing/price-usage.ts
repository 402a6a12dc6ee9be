import type { Usage } from '../model/adapter.js';
import type { PriceSheet, TokenPrices } from './price-sheet.js';

/** What one call, or a sum of calls, cost, by kind of token. Amounts are US dollars. */
export interface CostBreakdown {
  readonly currency: 'USD';
  /** Input processed afresh. */
  readonly freshInput: number;
  /** Input read from the prompt cache. */
  readonly cachedInput: number;
  /** Input written to the prompt cache. */
  readonly cacheWrite: number;
  /** Output, reasoning included. */
  readonly output: number;
  readonly total: number;
}

export const ZERO_COST: CostBreakdown = Object.freeze({
  currency: 'USD',
  freshInput: 0,
  cachedInput: 0,
  cacheWrite: 0,
  output: 0,
  total: 0,
});

const PER_MILLION = 1_000_000;

function breakdown(freshInput: number, cachedInput: number, cacheWrite: number, output: number): CostBreakdown {
  return {
    currency: 'USD',
    freshInput,
    cachedInput,
    cacheWrite,
    output,
    total: freshInput + cachedInput + cacheWrite + output,
  };
}

/** The rates that apply to a request of `inputTokens`: the long-context ones past their threshold. */
function ratesFor(sheet: PriceSheet, inputTokens: number): TokenPrices {
  return sheet.longContext !== undefined && inputTokens > sheet.longContext.aboveInputTokens
    ? sheet.longContext
    : sheet;
}

/**
 * The one pricing function: provider usage and a price sheet → what the call cost. Usage follows
 * core's convention (`inputTokens` includes cache reads and writes), so fresh input is what
 * remains of it. Undefined when the provider did not report input or output: a cost is never
 * made up from half a usage record. Unreported cache counts are zero (nothing was read or written).
 */
export function priceUsage(usage: Usage, sheet: PriceSheet): CostBreakdown | undefined {
  const { inputTokens, outputTokens } = usage;
  if (inputTokens === undefined || outputTokens === undefined) return undefined;
  const read = Math.min(usage.cacheReadTokens ?? 0, inputTokens);
  const written = Math.min(usage.cacheWriteTokens ?? 0, inputTokens - read);
  const fresh = inputTokens - read - written;
  const rates = ratesFor(sheet, inputTokens);
  return breakdown(
    (fresh * rates.inputPerMillion) / PER_MILLION,
    (read * (rates.cachedInputPerMillion ?? rates.inputPerMillion)) / PER_MILLION,
    (written * (rates.cacheWritePerMillion ?? rates.inputPerMillion)) / PER_MILLION,
    (outputTokens * rates.outputPerMillion) / PER_MILLION,
  );
}

/** Adds two costs field by field. */
export function addCost(left: CostBreakdown, right: CostBreakdown): CostBreakdown {
  return breakdown(
    left.freshInput + right.freshInput,
    left.cachedInput + right.cachedInput,
    left.cacheWrite + right.cacheWrite,
    left.output + right.output,
  );
}

/** The share of input served from the prompt cache, 0–1; undefined when no input was reported. */
export function cacheHitRatio(usage: Pick<Usage, 'inputTokens' | 'cacheReadTokens'>): number | undefined {
  const input = usage.inputTokens;
  if (input === undefined || input <= 0) return undefined;
  return Math.min(usage.cacheReadTokens ?? 0, input) / input;
}
