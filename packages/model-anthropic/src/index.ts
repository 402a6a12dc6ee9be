export { AnthropicModel, ANTHROPIC_VENDOR } from './anthropic-adapter.js';
export { placeBreakpoints, withBreakpoints, type BreakpointPlacement } from './breakpoints.js';
export {
  ANTHROPIC_CACHE_LIFETIMES,
  checkCacheLifetime,
  DEFAULT_ANTHROPIC_CACHE_LIFETIME,
  resolveAnthropicSettings,
  type AnthropicCacheLifetime,
  type AnthropicModelOptions,
} from './settings.js';
export {
  ANTHROPIC_CAPABILITIES,
  ANTHROPIC_CAPABILITY_SOURCE,
  ANTHROPIC_CAPABILITY_TABLE,
  ANTHROPIC_COUNTER,
  anthropicCapabilities,
  anthropicPromptCache,
  minimumCacheableTokens,
} from './capabilities.js';
export {
  ANTHROPIC_PRICE_TABLE,
  ANTHROPIC_RATES,
  anthropicPriceSheet,
  anthropicPriceTable,
  type AnthropicRates,
} from './prices.js';
export { createAnthropicModel, type CreateAnthropicModelOptions } from './create-anthropic-model.js';
