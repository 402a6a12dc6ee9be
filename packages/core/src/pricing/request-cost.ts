import { cacheableTokens, type PromptCacheRules } from './prompt-cache.js';
import type { PriceSheet } from './price-sheet.js';
import { priceUsage } from './price-usage.js';

/** What a request about to be sent will cost, before the provider says how much of it was cached. */
export interface RequestCostEstimate {
  readonly prices: PriceSheet;
  readonly inputTokens: number;
  /** Input cost with a cold cache: every token fresh. */
  readonly coldInput: number;
  /** Tokens an earlier request of the conversation can have left in the provider's cache. */
  readonly cacheableTokens: number;
  /** Input cost when those tokens are read from the cache. */
  readonly warmInput: number;
  readonly reservedOutputTokens: number;
  /** What the output costs if the whole reserve is used: an upper bound. */
  readonly outputUpTo: number;
}

export interface EstimateRequestCostOptions {
  readonly prices: PriceSheet;
  readonly inputTokens: number;
  /** The prefix an earlier request shared; rounded down to what `promptCache` lets the provider serve. */
  readonly sharedPrefixTokens: number;
  readonly reservedOutputTokens: number;
  readonly promptCache?: PromptCacheRules;
}

/** Prices a request both ways — cold cache and warm — with the same function that prices usage. */
export function estimateRequestCost(options: EstimateRequestCostOptions): RequestCostEstimate {
  const { prices, inputTokens } = options;
  const shared = Math.max(0, Math.min(options.sharedPrefixTokens, inputTokens));
  const cached = options.promptCache === undefined ? shared : cacheableTokens(shared, inputTokens, options.promptCache);
  const input = (cacheReadTokens: number) => priceUsage({ inputTokens, cacheReadTokens, cacheWriteTokens: undefined, outputTokens: 0, reasoningTokens: undefined }, prices)?.total ?? 0;
  const output = priceUsage({ inputTokens, cacheReadTokens: undefined, cacheWriteTokens: undefined, outputTokens: options.reservedOutputTokens, reasoningTokens: undefined }, prices);
  return {
    prices,
    inputTokens,
    coldInput: input(0),
    cacheableTokens: cached,
    warmInput: input(cached),
    reservedOutputTokens: options.reservedOutputTokens,
    outputUpTo: output?.output ?? 0,
  };
}
