import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { hasOrigin, streamModel, toLanguageModelPrompt, toLanguageModelTools, withOrigin, type ModelOrigin, type ProviderErrorContext } from '@forge/ai-sdk-bridge';
import { countMessagesWithEstimate, type Message, type ModelAdapter, type ModelCallOptions, type ModelCapabilities, type ModelRequest, type ModelStreamPart, type TokenEstimate } from '@forge/core';
import { resolveCompatibleSettings, type CompatibleModelOptions, type ResolvedCompatibleSettings } from './settings.js';

/** The profile an adapter is built with: limits and how to estimate a request. */
export interface CompatibleModelProfile {
  readonly capabilities: ModelCapabilities;
  estimate(request: ModelRequest): Promise<TokenEstimate>;
  /** Tokens each message adds to a request, by the same counter as `estimate`. */
  countMessages(messages: readonly Message[]): Promise<readonly number[]>;
}

/** How local servers word a context overflow (llama.cpp, LM Studio, vLLM), beyond the common patterns. */
const COMPATIBLE_OVERFLOW = [/exceeds the available context size/i, /context size has been exceeded/i, /n_ctx/i, /context the overflows/i, /maximum context length/i];

/**
 * Forge's adapter for any OpenAI-compatible Chat Completions server, through
 * `@ai-sdk/openai-compatible`, built from one configuration entry.
 */
export class CompatibleModel implements ModelAdapter {
  readonly specificationVersion = 'forge-model-v1' as const;
  readonly provider = 'compatible';
  /** The configured name, as in `compatible:<name>`: what Forge shows and records. The server is sent the entry's own `modelId`. */
  readonly modelId: string;
  readonly capabilities: ModelCapabilities;
  private readonly options: CompatibleModelOptions;
  private readonly settings: ResolvedCompatibleSettings;
  private readonly profile: CompatibleModelProfile;
  private readonly origin: ModelOrigin;

  constructor(options: CompatibleModelOptions, profile: CompatibleModelProfile) {
    this.options = options;
    this.settings = resolveCompatibleSettings(options);
    this.modelId = options.name;
    this.profile = profile;
    this.capabilities = { ...profile.capabilities, nativeCompaction: 'unsupported', continuationProjection: 'adapter-owned' };
    this.origin = { provider: this.provider, modelId: this.modelId };
  }

  estimateRequestTokens(request: ModelRequest): Promise<TokenEstimate> {
    return this.options.estimate?.(request) ?? this.profile.estimate(request);
  }

  countMessageTokens(messages: readonly Message[]): Promise<readonly number[]> {
    const injected = this.options.estimate;
    return injected === undefined ? this.profile.countMessages(messages) : countMessagesWithEstimate(injected, messages);
  }

  doStream(request: ModelRequest, options: ModelCallOptions): AsyncIterable<ModelStreamPart> {
    const model = createOpenAICompatible({
      name: this.options.name,
      baseURL: this.settings.baseURL,
      includeUsage: true,
      ...(this.settings.apiKey === undefined ? {} : { apiKey: this.settings.apiKey }),
      ...(this.options.headers === undefined ? {} : { headers: { ...this.options.headers } }),
    }).chatModel(this.options.modelId);
    return streamModel({
      model,
      callOptions: {
        prompt: toLanguageModelPrompt(request, { keepReasoning: (part) => hasOrigin(part, this.origin) }),
        tools: toLanguageModelTools(request.tools),
        ...(request.maxOutputTokens === undefined ? {} : { maxOutputTokens: request.maxOutputTokens }),
      },
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      errors: this.errorContext(),
      retry: this.settings.retry,
      idleTimeoutMs: this.settings.idleTimeoutMs,
      decorateReasoning: (metadata) => withOrigin(metadata, this.origin),
    });
  }

  private errorContext(): ProviderErrorContext {
    return {
      providerLabel: this.settings.label,
      baseURL: this.settings.baseURL,
      overflowPatterns: COMPATIBLE_OVERFLOW,
      ...(this.settings.keyVariable === undefined ? {} : { keyVariable: this.settings.keyVariable }),
    };
  }
}
