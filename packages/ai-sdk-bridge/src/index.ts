export { classifyProviderError, retryAfterOf, type ProviderErrorContext } from './classify-error.js';
export { sendableMessages } from './pairing.js';
export { CHECKPOINT_HEADING, encodeConversation, toLanguageModelPrompt, toLanguageModelTools, type PromptOptions } from './prompt.js';
export { defaultRetryPolicy, retryDelayMs, sleep, type RetryPolicy } from './retry.js';
export { streamModel, type StreamModelOptions } from './stream-model.js';
export { toCoreFinishReason, toCoreUsage } from './usage.js';
export { hasOrigin, ORIGIN_KEY, withOrigin, type ModelOrigin } from './origin.js';
export { resolveEndpointSettings, type EndpointSettings, type EndpointSettingsInput } from './endpoint-settings.js';
