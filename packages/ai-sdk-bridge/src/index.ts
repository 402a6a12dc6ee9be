export {
  classifyProviderError,
  retryAfterOf,
  type OverflowTokens,
  type ProviderErrorContext,
} from './classify-error.js';
export { sendableMessages } from './pairing.js';
export { assistantReasoning, assistantText, toolResultText, wireTool } from './chat-template-fields.js';
export {
  CHECKPOINT_HEADING,
  encodeConversation,
  toLanguageModelPrompt,
  toLanguageModelTools,
  type PromptOptions,
} from './prompt.js';
export { defaultRetryPolicy, retryDelayMs, sleep, type RetryPolicy } from './retry.js';
export { streamModel, type StreamModelOptions } from './stream-model.js';
export { toCoreFinishReason, toCoreUsage } from './usage.js';
export { hasOrigin, ORIGIN_KEY, withOrigin, type ModelOrigin } from './origin.js';
export { resolveEndpointSettings, type EndpointSettings, type EndpointSettingsInput } from './endpoint-settings.js';
export { countWithBoundedRuns } from './bounded-runs.js';
export {
  loadHuggingFaceTokenizer,
  loadPackagedTokenizer,
  type HuggingFaceTokenizerSource,
  type TextTokenizer,
} from './hugging-face-tokenizer.js';
export {
  createTokenizerEstimator,
  type TokenizerEstimator,
  type TokenizerEstimatorOptions,
} from './tokenizer-estimator.js';
export {
  resolveAdapterSettings,
  type AdapterOptions,
  type ResolvedAdapterSettings,
  type VendorEndpoint,
} from './adapter-settings.js';
export {
  AiSdkModel,
  modelProfile,
  providerSettings,
  type AiSdkVendor,
  type LanguageModelContext,
  type ModelProfile,
  type SendShape,
} from './ai-sdk-model.js';
export {
  capabilityTable,
  splitTableOptions,
  type CapabilityTable,
  type CapabilityTableSource,
  type TableCapabilityOptions,
  type TableModelOptions,
  type VendorCapabilityTable,
} from './capability-table.js';
