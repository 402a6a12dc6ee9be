import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { AiSdkModel, providerSettings, type AiSdkVendor, type ModelProfile } from '@forge/ai-sdk-bridge';
import { compatibleEndpoint, type CompatibleModelOptions } from './settings.js';

/**
 * Any OpenAI-compatible Chat Completions server through `@ai-sdk/openai-compatible`, built from one
 * configuration entry. Forge shows and records the configured name (`compatible:<name>`); the
 * server is sent the entry's own `modelId`.
 */
export const COMPATIBLE_VENDOR: AiSdkVendor<CompatibleModelOptions> = {
  provider: 'compatible',
  modelId: (options) => options.name,
  endpoint: compatibleEndpoint,
  nativeCompaction: 'unsupported',
  // How local servers word a context overflow (llama.cpp, LM Studio, vLLM).
  overflowPatterns: [
    /exceeds the available context size/i,
    /context size has been exceeded/i,
    /n_ctx/i,
    /context the overflows/i,
    /maximum context length/i,
  ],
  languageModel: (context) =>
    createOpenAICompatible({ ...providerSettings(context), name: context.options.name, includeUsage: true }).chatModel(
      context.options.modelId,
    ),
};

/** Forge's adapter for one configured OpenAI-compatible model. */
export class CompatibleModel extends AiSdkModel<CompatibleModelOptions> {
  constructor(options: CompatibleModelOptions, profile: ModelProfile) {
    super(COMPATIBLE_VENDOR, options, profile);
  }
}
