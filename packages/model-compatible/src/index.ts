export { CompatibleModel } from './compatible-adapter.js';
export {
  compatibleModelConfigSchema,
  resolveCompatibleSettings,
  type CompatibleModelConfig,
  type CompatibleModelOptions,
} from './settings.js';
export { compatibleCapabilities } from './capabilities.js';
export { createCompatibleModel } from './create-compatible-model.js';
export {
  COMPATIBLE_TOKENIZER_FAMILIES,
  compatibleTokenizerEstimator,
  loadCompatibleTokenizer,
} from './tokenizers/index.js';
export { QWEN3_LAYOUT, loadQwen3Tokenizer } from './tokenizers/qwen3.js';
export { LLAMA3_LAYOUT, loadLlama3Tokenizer } from './tokenizers/llama3.js';
