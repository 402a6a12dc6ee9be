/* `@forge/core/pricing`: pricing usage, formatting prices, and the prompt-cache rules and simulator. The price-sheet types are on the root. */
export { describePrices, describePriceSource, formatDollars, formatRate } from './format.js';
export { addCost, cacheHitRatio, priceUsage, type CostBreakdown } from './price-usage.js';
export { cacheableTokens, OPENAI_PROMPT_CACHE } from './prompt-cache.js';
export {
  createPromptCacheSimulator,
  type PromptCacheSimulator,
  type SimulatedUsage,
} from './prompt-cache-simulator.js';
export { promptCacheText } from './prompt-cache-text.js';
export { checkPriceSheet } from './price-sheet.js';
export { estimateRequestCost } from './request-cost.js';
