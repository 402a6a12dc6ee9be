export { DeepSeekModel } from './deepseek-adapter.js';
export { resolveDeepSeekSettings, type DeepSeekModelOptions } from './settings.js';
export {
  DEEPSEEK_CAPABILITIES,
  DEEPSEEK_CAPABILITY_SOURCE,
  DEEPSEEK_CAPABILITY_TABLE,
  DEEPSEEK_V3_TOKENIZER,
} from './capabilities.js';
export { DEEPSEEK_PRICE_TABLE, DEEPSEEK_PROMPT_CACHE } from './prices.js';
export { createDeepSeekModel, type CreateDeepSeekModelOptions } from './create-deepseek-model.js';
export { createDeepSeekEstimator, DEEPSEEK_V3_LAYOUT, loadDeepSeekV3Tokenizer } from './deepseek-tokenizer.js';
