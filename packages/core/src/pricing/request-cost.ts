import { cacheableTokens, type PromptCacheRules } from './prompt-cache.js';
import type { PriceSheet } from './price-sheet.js';
import { priceUsage } from './price-usage.js';

/** What a request about to be sent will cost, before the provider says how much of it was cached. */
export interface RequestCostEstimate {
  readonly prices: PriceSheet;
  readonly inputTokens: number;
  /** Input cost with a cold cache: nothing read from it (see {@link priceInput}). */
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

/**
 * Of a prefix of `sharedTokens` that an earlier request left in the provider's cache, the tokens a
 * request of `inputTokens` reads from it: rounded down to what `rules` let the provider serve, or
 * the whole shared prefix when its rules are unknown.
 */
export function cachedInputTokens(
  sharedTokens: number,
  inputTokens: number,
  rules: PromptCacheRules | undefined,
): number {
  const shared = Math.max(0, Math.min(sharedTokens, inputTokens));
  return rules === undefined ? shared : cacheableTokens(shared, inputTokens, rules);
}

/**
 * What `inputTokens` of input cost when `cachedTokens` of them are read from the prompt cache. The
 * rest is written to the cache, for later requests to read; `priceUsage` prices a write at the
 * sheet's cache-write rate, or at the input rate for a provider that bills no writes.
 */
export function priceInput(prices: PriceSheet, inputTokens: number, cachedTokens: number): number {
  const read = Math.max(0, Math.min(cachedTokens, inputTokens));
  return (
    priceUsage(
      {
        inputTokens,
        cacheReadTokens: read,
        cacheWriteTokens: inputTokens - read,
        outputTokens: 0,
        reasoningTokens: undefined,
      },
      prices,
    )?.total ?? 0
  );
}

/** Prices a request both ways — cold cache and warm — with the same function that prices usage. */
export function estimateRequestCost(options: EstimateRequestCostOptions): RequestCostEstimate {
  const { prices, inputTokens } = options;
  const cached = cachedInputTokens(options.sharedPrefixTokens, inputTokens, options.promptCache);
  const input = (cacheReadTokens: number) => priceInput(prices, inputTokens, cacheReadTokens);
  const output = priceUsage(
    {
      inputTokens,
      cacheReadTokens: undefined,
      cacheWriteTokens: undefined,
      outputTokens: options.reservedOutputTokens,
      reasoningTokens: undefined,
    },
    prices,
  );
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
