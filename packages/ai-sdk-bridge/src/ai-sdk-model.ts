import type {
  LanguageModelV4,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  SharedV4ProviderOptions,
} from '@ai-sdk/provider';
import {
  countMessagesWithEstimate,
  type Message,
  type ModelAdapter,
  type ModelCallOptions,
  type ModelCapabilities,
  type ModelRequest,
  type ModelStreamPart,
  type OpaqueProviderState,
  type ReasoningPart,
  type TokenEstimate,
  withoutReplacedHistory,
} from '@forge/core';
import {
  resolveAdapterSettings,
  type AdapterOptions,
  type ResolvedAdapterSettings,
  type VendorEndpoint,
} from './adapter-settings.js';
import type { ProviderErrorContext } from './classify-error.js';
import { hasOrigin, withOrigin, type ModelOrigin } from './origin.js';
import { toLanguageModelPrompt, toLanguageModelTools } from './prompt.js';
import { streamModel } from './stream-model.js';

/** The profile an adapter is built with: limits and how to count a request. */
export interface ModelProfile {
  readonly capabilities: ModelCapabilities;
  estimate(request: ModelRequest): Promise<TokenEstimate>;
  /** Tokens each message adds to a request, by the same counter as `estimate`. */
  countMessages(messages: readonly Message[]): Promise<readonly number[]>;
}

/** A profile from capabilities and any estimator with `estimate` and `countMessages` (sync or async). */
export function modelProfile(
  capabilities: ModelCapabilities,
  estimator: {
    estimate(request: ModelRequest): TokenEstimate | Promise<TokenEstimate>;
    countMessages(messages: readonly Message[]): readonly number[] | Promise<readonly number[]>;
  },
): ModelProfile {
  return {
    capabilities,
    estimate: async (request) => estimator.estimate(request),
    countMessages: async (messages) => estimator.countMessages(messages),
  };
}

/** What `languageModel` is given: the adapter's options, its resolved settings and a fetch to use instead of the global one. */
export interface LanguageModelContext<Options extends AdapterOptions> {
  readonly options: Options;
  readonly settings: ResolvedAdapterSettings;
  readonly fetch?: typeof fetch;
}

/** The settings every AI SDK provider factory takes (`createOpenAI`, `createDeepSeek`, `createOpenAICompatible`). */
export function providerSettings(context: LanguageModelContext<AdapterOptions>): {
  baseURL: string;
  apiKey?: string;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
} {
  return {
    baseURL: context.settings.baseURL,
    ...(context.settings.apiKey === undefined ? {} : { apiKey: context.settings.apiKey }),
    ...(context.options.headers === undefined ? {} : { headers: { ...context.options.headers } }),
    ...(context.fetch === undefined ? {} : { fetch: context.fetch }),
  };
}

/** What one vendor's adapter is made of; everything else `AiSdkModel` does the same for all vendors. */
export interface AiSdkVendor<Options extends AdapterOptions> {
  /** Forge's name of the provider (`openai`), recorded as the origin of reasoning. */
  readonly provider: string;
  /** The model id Forge shows and records. */
  modelId(options: Options): string;
  endpoint(options: Options): VendorEndpoint;
  readonly nativeCompaction: ModelCapabilities['nativeCompaction'];
  /** Vendor wording of a context overflow, beyond the common patterns. */
  readonly overflowPatterns?: readonly RegExp[];
  /** Reads the sizes from the vendor's overflow message when its numbers are not in the common order. */
  readonly overflowTokens?: ProviderErrorContext['overflowTokens'];
  /** The AI SDK language model, built with the vendor's provider factory. */
  languageModel(context: LanguageModelContext<Options>): LanguageModelV4;
  /** Per-request provider options; undefined sends none. */
  providerOptions?(options: Options, call: ModelCallOptions): SharedV4ProviderOptions | undefined;
  /** Whether a reasoning part is sent back to this model (default: only reasoning it produced itself). */
  keepReasoning?(part: ReasoningPart, origin: ModelOrigin): boolean;
  /** Marks the encoded prompt before it is sent (Anthropic's cache breakpoints); default: sent as encoded. */
  preparePrompt?(prompt: LanguageModelV4Prompt, request: ModelRequest, options: Options): LanguageModelV4Prompt;
}

/** What a vendor may change about one request as it is sent (OpenAI's replayed compaction state). */
export interface SendShape {
  readonly checkpointReplacement?: readonly LanguageModelV4Message[];
  readonly fetch?: typeof fetch;
}

/**
 * The adapter every AI SDK vendor shares: settings, estimation, prompt encoding, streaming with
 * retries and idle timeout, error classification and reasoning origin. A vendor supplies only what
 * differs (`AiSdkVendor`); one with more to do (native compaction) extends it.
 */
export class AiSdkModel<Options extends AdapterOptions> implements ModelAdapter {
  readonly specificationVersion = 'forge-model-v1' as const;
  readonly provider: string;
  readonly modelId: string;
  readonly capabilities: ModelCapabilities;
  protected readonly options: Options;
  protected readonly settings: ResolvedAdapterSettings;
  protected readonly origin: ModelOrigin;
  private readonly vendor: AiSdkVendor<Options>;
  private readonly profile: ModelProfile;

  constructor(vendor: AiSdkVendor<Options>, options: Options, profile: ModelProfile) {
    this.vendor = vendor;
    this.options = options;
    this.settings = resolveAdapterSettings(vendor.endpoint(options), options);
    this.provider = vendor.provider;
    this.modelId = vendor.modelId(options);
    this.profile = profile;
    this.capabilities = {
      ...profile.capabilities,
      ...options.capabilities,
      nativeCompaction: vendor.nativeCompaction,
      continuationProjection: 'adapter-owned',
    };
    this.origin = { provider: this.provider, modelId: this.modelId };
  }

  estimateRequestTokens(request: ModelRequest): Promise<TokenEstimate> {
    return this.profiledEstimate(request);
  }

  /**
   * Estimates `request` as it is sent while `replay` stands in for its checkpoint: without the
   * checkpoint and the messages the state replaces, plus `replayTokens` counted as checkpoint.
   */
  protected async estimateReplaying(
    request: ModelRequest,
    replay: OpaqueProviderState,
    replayTokens: number,
  ): Promise<TokenEstimate> {
    const { checkpoint: _replaced, nativeState: _opaque, ...rest } = withoutReplacedHistory(request, replay);
    const base = await this.profiledEstimate(rest);
    return {
      ...base,
      tokens: base.tokens + replayTokens,
      categories: { ...base.categories, checkpoint: base.categories.checkpoint + replayTokens },
    };
  }

  private profiledEstimate(request: ModelRequest): Promise<TokenEstimate> {
    return this.options.estimate?.(request) ?? this.profile.estimate(request);
  }

  countMessageTokens(messages: readonly Message[]): Promise<readonly number[]> {
    const injected = this.options.estimate;
    return injected === undefined
      ? this.profile.countMessages(messages)
      : countMessagesWithEstimate(injected, messages);
  }

  doStream(request: ModelRequest, options: ModelCallOptions): AsyncIterable<ModelStreamPart> {
    return this.stream(request, options);
  }

  /** Streams `request` as the vendor receives it, `shape` applied. */
  protected stream(
    request: ModelRequest,
    call: ModelCallOptions,
    shape: SendShape = {},
  ): AsyncIterable<ModelStreamPart> {
    const providerOptions = this.providerOptions(call);
    const prompt = toLanguageModelPrompt(request, {
      keepReasoning: (part) => this.keepReasoning(part),
      ...(shape.checkpointReplacement === undefined ? {} : { checkpointReplacement: shape.checkpointReplacement }),
    });
    return streamModel({
      model: this.languageModel(shape.fetch),
      callOptions: {
        prompt: this.vendor.preparePrompt?.(prompt, request, this.options) ?? prompt,
        tools: toLanguageModelTools(request.tools),
        ...(request.maxOutputTokens === undefined ? {} : { maxOutputTokens: request.maxOutputTokens }),
        ...(providerOptions === undefined ? {} : { providerOptions }),
      },
      ...(call.signal === undefined ? {} : { signal: call.signal }),
      errors: this.errorContext(),
      retry: this.settings.retry,
      idleTimeoutMs: this.settings.idleTimeoutMs,
      decorateReasoning: (metadata) => withOrigin(metadata, this.origin),
    });
  }

  protected keepReasoning(part: ReasoningPart): boolean {
    return this.vendor.keepReasoning?.(part, this.origin) ?? hasOrigin(part, this.origin);
  }

  protected languageModel(fetchOverride?: typeof fetch): LanguageModelV4 {
    return this.vendor.languageModel({
      options: this.options,
      settings: this.settings,
      ...(fetchOverride === undefined ? {} : { fetch: fetchOverride }),
    });
  }

  protected providerOptions(call: ModelCallOptions): SharedV4ProviderOptions | undefined {
    return this.vendor.providerOptions?.(this.options, call);
  }

  protected errorContext(): ProviderErrorContext {
    return {
      providerLabel: this.settings.label,
      baseURL: this.settings.baseURL,
      ...(this.vendor.overflowPatterns === undefined ? {} : { overflowPatterns: this.vendor.overflowPatterns }),
      ...(this.vendor.overflowTokens === undefined ? {} : { overflowTokens: this.vendor.overflowTokens }),
      ...(this.settings.keyVariable === undefined ? {} : { keyVariable: this.settings.keyVariable }),
    };
  }
}
