import { createDeepSeek } from '@ai-sdk/deepseek';
import { AiSdkModel, providerSettings, ORIGIN_KEY, type AiSdkVendor, type ModelProfile } from '@forge/ai-sdk-bridge';
import type { JsonObject } from '@forge/core';
import { DEEPSEEK_ENDPOINT, type DeepSeekModelOptions } from './settings.js';

/**
 * DeepSeek's Chat Completions API through `@ai-sdk/deepseek`. Reasoning (`reasoning_content`)
 * DeepSeek produced is plain text and goes back to any DeepSeek model, as thinking mode requires
 * for turns with tool calls; reasoning from other providers is never sent as DeepSeek's own.
 */
export const DEEPSEEK_VENDOR: AiSdkVendor<DeepSeekModelOptions> = {
  provider: 'deepseek',
  modelId: (options) => options.modelId,
  endpoint: () => DEEPSEEK_ENDPOINT,
  nativeCompaction: 'unsupported',
  overflowPatterns: [/maximum context length/i, /context length of \d+/i],
  languageModel: (context) => createDeepSeek(providerSettings(context)).chat(context.options.modelId),
  providerOptions: (options) => ({
    deepseek: {
      ...(options.thinking === undefined ? {} : { thinking: { type: options.thinking } }),
      reasoningEffort: options.reasoningEffort,
    },
  }),
  keepReasoning: (part) => {
    const origin = part.providerMetadata?.[ORIGIN_KEY];
    return (
      typeof origin === 'object' &&
      origin !== null &&
      !Array.isArray(origin) &&
      (origin as JsonObject)['provider'] === 'deepseek'
    );
  },
};

/** Forge's adapter for DeepSeek; cache hits are reported as cache-read tokens. */
export class DeepSeekModel extends AiSdkModel<DeepSeekModelOptions> {
  constructor(options: DeepSeekModelOptions, profile: ModelProfile) {
    super(DEEPSEEK_VENDOR, options, profile);
  }
}
