import { createAnthropic } from '@ai-sdk/anthropic';
import { AiSdkModel, providerSettings, type AiSdkVendor, type ModelProfile } from '@forge/ai-sdk-bridge';
import { withBreakpoints } from './breakpoints.js';
import { ANTHROPIC_ENDPOINT, DEFAULT_ANTHROPIC_CACHE_LIFETIME, type AnthropicModelOptions } from './settings.js';

/**
 * Anthropic's Messages API through `@ai-sdk/anthropic`. Every request carries cache breakpoints
 * (see breakpoints.ts); thinking blocks, with their signatures, go back only to the model that
 * produced them.
 */
export const ANTHROPIC_VENDOR: AiSdkVendor<AnthropicModelOptions> = {
  provider: 'anthropic',
  modelId: (options) => options.modelId,
  endpoint: () => ANTHROPIC_ENDPOINT,
  nativeCompaction: 'unsupported',
  overflowPatterns: [/prompt is too long/i, /input length and `max_tokens` exceed context limit/i],
  languageModel: (context) => createAnthropic(providerSettings(context)).messages(context.options.modelId),
  preparePrompt: (prompt, request, options) =>
    withBreakpoints(prompt, request, options.cacheLifetime ?? DEFAULT_ANTHROPIC_CACHE_LIFETIME),
};

/** Forge's adapter for Claude models; cache writes and reads are reported as Anthropic bills them. */
export class AnthropicModel extends AiSdkModel<AnthropicModelOptions> {
  constructor(options: AnthropicModelOptions, profile: ModelProfile) {
    super(ANTHROPIC_VENDOR, options, profile);
  }
}
