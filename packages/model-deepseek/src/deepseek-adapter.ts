import { createDeepSeek } from '@ai-sdk/deepseek';
import type { SharedV4ProviderOptions } from '@ai-sdk/provider';
import { streamModel, toLanguageModelPrompt, toLanguageModelTools, withOrigin, ORIGIN_KEY, type ProviderErrorContext } from '@forge/ai-sdk-bridge';
import {
  countMessagesWithEstimate,
  type JsonObject,
  type Message,
  type ModelAdapter,
  type ModelCallOptions,
  type ModelCapabilities,
  type ModelRequest,
  type ModelStreamPart,
  type ReasoningPart,
  type TokenEstimate,
} from '@forge/core';
import { resolveDeepSeekSettings, type DeepSeekModelOptions, type ResolvedDeepSeekSettings } from './settings.js';

/** The profile an adapter is built with: limits and how to estimate a request. */
export interface DeepSeekModelProfile {
  readonly capabilities: ModelCapabilities;
  estimate(request: ModelRequest): Promise<TokenEstimate>;
  /** Tokens each message adds to a request, by the same counter as `estimate`. */
  countMessages(messages: readonly Message[]): Promise<readonly number[]>;
}

/** DeepSeek's context overflow message, beyond the common patterns. */
const DEEPSEEK_OVERFLOW = [/maximum context length/i, /context length of \d+/i];

/**
 * Forge's adapter for DeepSeek's Chat Completions API, through `@ai-sdk/deepseek`. Reasoning
 * (`reasoning_content`) is kept in history and passed back on later requests, as thinking mode
 * requires for turns with tool calls; cache hits are reported as cache-read tokens.
 */
export class DeepSeekModel implements ModelAdapter {
  readonly specificationVersion = 'forge-model-v1' as const;
  readonly provider = 'deepseek';
  readonly modelId: string;
  readonly capabilities: ModelCapabilities;
  private readonly options: DeepSeekModelOptions;
  private readonly settings: ResolvedDeepSeekSettings;
  private readonly profile: DeepSeekModelProfile;

  constructor(options: DeepSeekModelOptions, profile: DeepSeekModelProfile) {
    this.options = options;
    this.settings = resolveDeepSeekSettings(options);
    this.modelId = options.modelId;
    this.profile = profile;
    this.capabilities = { ...profile.capabilities, ...options.capabilities, nativeCompaction: 'unsupported', continuationProjection: 'adapter-owned' };
  }

  estimateRequestTokens(request: ModelRequest): Promise<TokenEstimate> {
    return this.options.estimate?.(request) ?? this.profile.estimate(request);
  }

  countMessageTokens(messages: readonly Message[]): Promise<readonly number[]> {
    const injected = this.options.estimate;
    return injected === undefined ? this.profile.countMessages(messages) : countMessagesWithEstimate(injected, messages);
  }

  doStream(request: ModelRequest, options: ModelCallOptions): AsyncIterable<ModelStreamPart> {
    const model = createDeepSeek({
      baseURL: this.settings.baseURL,
      apiKey: this.settings.apiKey,
      ...(this.options.headers === undefined ? {} : { headers: { ...this.options.headers } }),
    }).chat(this.modelId);
    return streamModel({
      model,
      callOptions: {
        prompt: toLanguageModelPrompt(request, { keepReasoning: isDeepSeekReasoning }),
        tools: toLanguageModelTools(request.tools),
        ...(request.maxOutputTokens === undefined ? {} : { maxOutputTokens: request.maxOutputTokens }),
        providerOptions: this.providerOptions(),
      },
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      errors: this.errorContext(),
      retry: this.settings.retry,
      idleTimeoutMs: this.settings.idleTimeoutMs,
      decorateReasoning: (metadata) => withOrigin(metadata, { provider: this.provider, modelId: this.modelId }),
    });
  }

  private providerOptions(): SharedV4ProviderOptions {
    const deepseek: JsonObject = {
      ...(this.options.thinking === undefined ? {} : { thinking: { type: this.options.thinking } }),
      ...(this.options.reasoningEffort === undefined ? {} : { reasoningEffort: this.options.reasoningEffort }),
    };
    return { deepseek };
  }

  private errorContext(): ProviderErrorContext {
    return {
      providerLabel: 'DeepSeek',
      baseURL: this.settings.baseURL,
      overflowPatterns: DEEPSEEK_OVERFLOW,
      ...(this.settings.keyVariable === undefined ? {} : { keyVariable: this.settings.keyVariable }),
    };
  }
}

/**
 * Reasoning DeepSeek produced is plain text and goes back to any DeepSeek model (a V4 model
 * requires it); reasoning from other providers is never sent as DeepSeek's own.
 */
function isDeepSeekReasoning(part: ReasoningPart): boolean {
  const origin = part.providerMetadata?.[ORIGIN_KEY];
  return typeof origin === 'object' && origin !== null && !Array.isArray(origin) && (origin as JsonObject)['provider'] === 'deepseek';
}
