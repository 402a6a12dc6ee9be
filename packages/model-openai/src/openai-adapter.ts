import { createOpenAI } from '@ai-sdk/openai';
import type { LanguageModelV4, LanguageModelV4Message, SharedV4ProviderOptions } from '@ai-sdk/provider';
import {
  encodeConversation,
  hasOrigin,
  streamModel,
  toLanguageModelPrompt,
  toLanguageModelTools,
  withOrigin,
  type ModelOrigin,
  type ProviderErrorContext,
} from '@forge/ai-sdk-bridge';
import {
  countMessagesWithEstimate,
  InvalidInputError,
  type JsonObject,
  type Message,
  type JsonValue,
  type ModelAdapter,
  type ModelCallOptions,
  type ModelCapabilities,
  type ModelRequest,
  type ModelStreamPart,
  type NativeCompactionRequest,
  type OpaqueProviderState,
  type ReasoningPart,
  type TokenEstimate,
} from '@forge/core';
import { postCompact } from './compact-endpoint.js';
import { canReplay, replayingFetch, replayMarkerMessage, stateFromOutput, withoutReplacedHistory } from './native-compaction.js';
import { resolveOpenAISettings, type OpenAIModelOptions, type ResolvedOpenAISettings } from './settings.js';

/** Opaque items are counted at one token per this many bytes: encrypted content never tokenizes smaller. */
const OPAQUE_BYTES_PER_TOKEN = 4;

/** The profile an adapter is built with: limits and how to estimate a request. */
export interface OpenAIModelProfile {
  readonly capabilities: ModelCapabilities;
  estimate(request: ModelRequest): Promise<TokenEstimate>;
  /** Tokens each message adds to a request, by the same counter as `estimate`. */
  countMessages(messages: readonly Message[]): Promise<readonly number[]>;
}

/**
 * Forge's adapter for the OpenAI Responses API, through the AI SDK. Requests are sent with
 * `store: false`; encrypted reasoning is requested for reasoning models and passed back to the
 * same model on later steps. Supports provider-native opaque compaction (`compact`).
 */
export class OpenAIModel implements ModelAdapter {
  readonly specificationVersion = 'forge-model-v1' as const;
  readonly provider = 'openai';
  readonly modelId: string;
  readonly capabilities: ModelCapabilities;
  private readonly options: OpenAIModelOptions;
  private readonly settings: ResolvedOpenAISettings;
  private readonly profile: OpenAIModelProfile;
  private readonly origin: ModelOrigin;

  constructor(options: OpenAIModelOptions, profile: OpenAIModelProfile) {
    this.options = options;
    this.settings = resolveOpenAISettings(options);
    this.modelId = options.modelId;
    this.profile = profile;
    this.capabilities = { ...profile.capabilities, ...options.capabilities, nativeCompaction: 'opaque-provider-item', continuationProjection: 'adapter-owned' };
    this.origin = { provider: this.provider, modelId: this.modelId };
  }

  /**
   * Estimates the request as it will be sent: when native state is replayed, without the
   * checkpoint text and the messages it replaces, plus the opaque items at one token per 4 bytes
   * (counted as checkpoint).
   */
  async estimateRequestTokens(request: ModelRequest): Promise<TokenEstimate> {
    const estimate = (sent: ModelRequest): Promise<TokenEstimate> => this.options.estimate?.(sent) ?? this.profile.estimate(sent);
    const replay = canReplay(request.nativeState, this.modelId) ? request.nativeState : undefined;
    if (replay === undefined) return estimate(request);
    const { checkpoint: _replaced, nativeState: _opaque, ...rest } = withoutReplacedHistory(request, replay);
    const base = await estimate(rest);
    const opaque = Math.ceil(replay.bytes / OPAQUE_BYTES_PER_TOKEN);
    return { ...base, tokens: base.tokens + opaque, categories: { ...base.categories, checkpoint: base.categories.checkpoint + opaque } };
  }

  /** Exact o200k tokens each message adds as history (replayed native state does not change them). */
  countMessageTokens(messages: readonly Message[]): Promise<readonly number[]> {
    const injected = this.options.estimate;
    return injected === undefined ? this.profile.countMessages(messages) : countMessagesWithEstimate(injected, messages);
  }

  doStream(request: ModelRequest, options: ModelCallOptions): AsyncIterable<ModelStreamPart> {
    const state = request.nativeState;
    const replay = canReplay(state, this.modelId) ? state : undefined;
    const sent = replay === undefined ? request : withoutReplacedHistory(request, replay);
    const prompt = toLanguageModelPrompt(sent, {
      keepReasoning: (part) => this.keepReasoning(part),
      ...(replay === undefined ? {} : { checkpointReplacement: [replayMarkerMessage()] }),
    });
    return streamModel({
      model: this.languageModel(replay === undefined ? undefined : replayingFetch(replay.items)),
      callOptions: {
        prompt,
        tools: toLanguageModelTools(request.tools),
        ...(request.maxOutputTokens === undefined ? {} : { maxOutputTokens: request.maxOutputTokens }),
        providerOptions: this.providerOptions(options.promptCacheKey),
      },
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      errors: this.errorContext(),
      retry: this.settings.retry,
      idleTimeoutMs: this.settings.idleTimeoutMs,
      decorateReasoning: (metadata) => withOrigin(metadata, this.origin),
    });
  }

  /**
   * Compacts `request.messages` (after the previous state, when it belongs to this model) with
   * `POST /responses/compact` and returns the provider's output untouched as opaque state.
   */
  async compact(request: NativeCompactionRequest, options: ModelCallOptions): Promise<OpaqueProviderState> {
    if (request.messages.length === 0 && request.previous === undefined) {
      throw new InvalidInputError({ message: 'Nothing to compact: the compaction request has no messages and no previous state.' });
    }
    const previous = canReplay(request.previous, this.modelId) ? request.previous : undefined;
    const prompt: LanguageModelV4Message[] = [];
    if (request.instructions.length > 0) prompt.push({ role: 'system', content: request.instructions });
    if (previous !== undefined) prompt.push(replayMarkerMessage());
    prompt.push(...encodeConversation(request.messages, (part) => this.keepReasoning(part)));
    const input = await this.encodeInput(prompt, previous?.items ?? []);
    const output = await postCompact({
      url: `${this.settings.baseURL}/responses/compact`,
      headers: { authorization: `Bearer ${this.settings.apiKey}`, ...this.options.headers },
      body: { model: this.modelId, input },
      signal: options.signal,
      errors: this.errorContext(),
      retry: this.settings.retry,
      idleTimeoutMs: this.settings.idleTimeoutMs,
    });
    return stateFromOutput({ modelId: this.modelId, output, compacted: request.messages, previous });
  }

  private keepReasoning(part: ReasoningPart): boolean {
    return hasOrigin(part, this.origin);
  }

  private languageModel(fetchOverride: typeof fetch | undefined): LanguageModelV4 {
    return createOpenAI({
      baseURL: this.settings.baseURL,
      apiKey: this.settings.apiKey,
      ...(this.options.headers === undefined ? {} : { headers: { ...this.options.headers } }),
      ...(fetchOverride === undefined ? {} : { fetch: fetchOverride }),
    }).responses(this.modelId);
  }

  /** `promptCacheKey` routes the conversation's requests to the same prompt cache (`prompt_cache_key`). */
  private providerOptions(promptCacheKey?: string): SharedV4ProviderOptions {
    const openai: JsonObject = {
      store: false,
      ...(promptCacheKey === undefined ? {} : { promptCacheKey }),
      ...(this.options.reasoningEffort === undefined ? {} : { reasoningEffort: this.options.reasoningEffort }),
      ...(this.options.reasoningSummary === undefined ? {} : { reasoningSummary: this.options.reasoningSummary }),
      ...(this.options.forceReasoning === undefined ? {} : { forceReasoning: this.options.forceReasoning }),
    };
    return { openai };
  }

  private errorContext(): ProviderErrorContext {
    return {
      providerLabel: 'OpenAI',
      baseURL: this.settings.baseURL,
      ...(this.settings.keyVariable === undefined ? {} : { keyVariable: this.settings.keyVariable }),
    };
  }

  /**
   * The Responses `input` the AI SDK would send for `prompt`, with any replayed items spliced in:
   * the request is encoded by the SDK and captured before it leaves the process.
   */
  private async encodeInput(prompt: LanguageModelV4Message[], replayItems: readonly JsonObject[]): Promise<JsonValue> {
    let captured: string | undefined;
    const capture: typeof fetch = (_url, init) => {
      captured = typeof init?.body === 'string' ? init.body : undefined;
      return Promise.reject(new Error('request captured'));
    };
    const model = this.languageModel(replayingFetch(replayItems, capture));
    try {
      await model.doStream({ prompt, providerOptions: this.providerOptions() });
    } catch (error) {
      if (captured === undefined) throw error;
    }
    if (captured === undefined) throw new InvalidInputError({ message: 'The compaction request could not be encoded.' });
    return (JSON.parse(captured) as { input?: JsonValue }).input ?? [];
  }
}
