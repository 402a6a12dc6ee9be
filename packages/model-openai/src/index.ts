export { OpenAIModel } from './openai-adapter.js';
export { canReplay, REPLAY_MARKER_ID } from './native-compaction.js';
export { resolveOpenAISettings, type OpenAIModelOptions } from './settings.js';
export {
  OPENAI_CAPABILITIES,
  OPENAI_CAPABILITY_SOURCE,
  OPENAI_CAPABILITY_TABLE,
  OPENAI_TOKENIZER,
} from './capabilities.js';
export { OPENAI_PRICE_TABLE } from './prices.js';
export { createOpenAIModel, type CreateOpenAIModelOptions } from './create-openai-model.js';
export {
  countO200kTokens,
  createO200kEstimator,
  loadO200kTokenizer,
  OPENAI_FRAMING_OVERHEAD,
  type O200kEstimator,
  type O200kTokenizer,
} from './o200k-estimator.js';
