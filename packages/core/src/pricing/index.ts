export { checkPriceSheet, type LongContextPrices, type PriceSheet, type PriceSource, type TokenPrices } from './price-sheet.js';
export { describePrices, describePriceSource, formatDollars, formatRate } from './format.js';
export { addCost, cacheHitRatio, priceUsage, ratesFor, ZERO_COST, type CostBreakdown } from './price-usage.js';
export { cacheableTokens, checkPromptCacheRules, OPENAI_PROMPT_CACHE, type PromptCacheRules } from './prompt-cache.js';
export {
  createPromptCacheSimulator,
  type PromptCacheSimulator,
  type PromptCacheSimulatorOptions,
  type SimulatedRequest,
  type SimulatedUsage,
} from './prompt-cache-simulator.js';
export { promptCacheKey, type PromptCacheKeyInput } from './prompt-cache-key.js';
export { promptCacheText } from './prompt-cache-text.js';
export { estimateRequestCost, type EstimateRequestCostOptions, type RequestCostEstimate } from './request-cost.js';
