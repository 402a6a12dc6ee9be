import { createOpenAI } from '@ai-sdk/openai';
import type { LanguageModelV4Message } from '@ai-sdk/provider';
import {
  AiSdkModel,
  providerSettings,
  encodeConversation,
  type AiSdkVendor,
  type ModelProfile,
} from '@forge/ai-sdk-bridge';
import {
  InvalidInputError,
  type JsonObject,
  type JsonValue,
  type ModelCallOptions,
  type ModelRequest,
  type ModelStreamPart,
  type NativeCompactionRequest,
  opaqueStateOf,
  type OpaqueProviderState,
  type TokenEstimate,
  withoutReplacedHistory,
} from '@forge/core';
import { postCompact } from './compact-endpoint.js';
import { canReplay, replayingFetch, replayMarkerMessage } from './native-compaction.js';
import { OPENAI_ENDPOINT, type OpenAIModelOptions } from './settings.js';

/** Opaque items are counted at one token per this many bytes: encrypted content never tokenizes smaller. */
const OPAQUE_BYTES_PER_TOKEN = 4;

/**
 * The OpenAI Responses API through `@ai-sdk/openai`. Requests are sent with `store: false`;
 * encrypted reasoning is passed back only to the model that produced it. `promptCacheKey` routes
 * a conversation's requests to the same prompt cache (`prompt_cache_key`).
 */
export const OPENAI_VENDOR: AiSdkVendor<OpenAIModelOptions> = {
  provider: 'openai',
  modelId: (options) => options.modelId,
  endpoint: () => OPENAI_ENDPOINT,
  nativeCompaction: 'opaque-provider-item',
  languageModel: (context) => createOpenAI(providerSettings(context)).responses(context.options.modelId),
  providerOptions: (options, call) => ({
    openai: {
      store: false,
      promptCacheKey: call.promptCacheKey,
      reasoningEffort: options.reasoningEffort,
      reasoningSummary: options.reasoningSummary,
      forceReasoning: options.forceReasoning,
    },
  }),
};

/**
 * Forge's adapter for OpenAI, with provider-native opaque compaction (`compact`): its state is
 * replayed in place of the checkpoint and the messages it replaced, to the same model only.
 */
export class OpenAIModel extends AiSdkModel<OpenAIModelOptions> {
  constructor(options: OpenAIModelOptions, profile: ModelProfile) {
    super(OPENAI_VENDOR, options, profile);
  }

  /**
   * Estimates the request as it will be sent: when native state is replayed, without the
   * checkpoint text and the messages it replaces, plus the opaque items at one token per 4 bytes
   * (counted as checkpoint).
   */
  override estimateRequestTokens(request: ModelRequest): Promise<TokenEstimate> {
    const replay = canReplay(request.nativeState, this.modelId) ? request.nativeState : undefined;
    if (replay === undefined) return super.estimateRequestTokens(request);
    return this.estimateReplaying(request, replay, Math.ceil(replay.bytes / OPAQUE_BYTES_PER_TOKEN));
  }

  override doStream(request: ModelRequest, options: ModelCallOptions): AsyncIterable<ModelStreamPart> {
    const state = request.nativeState;
    const replay = canReplay(state, this.modelId) ? state : undefined;
    if (replay === undefined) return this.stream(request, options);
    return this.stream(withoutReplacedHistory(request, replay), options, {
      checkpointReplacement: [replayMarkerMessage()],
      fetch: replayingFetch(replay.items),
    });
  }

  /**
   * Compacts `request.messages` (after the previous state, when it belongs to this model) with
   * `POST /responses/compact` and returns the provider's output untouched as opaque state.
   */
  async compact(request: NativeCompactionRequest, options: ModelCallOptions): Promise<OpaqueProviderState> {
    if (request.messages.length === 0 && request.previous === undefined) {
      throw new InvalidInputError({
        message: 'Nothing to compact: the compaction request has no messages and no previous state.',
      });
    }
    const previous = canReplay(request.previous, this.modelId) ? request.previous : undefined;
    const prompt: LanguageModelV4Message[] = [];
    if (request.instructions.length > 0) prompt.push({ role: 'system', content: request.instructions });
    if (previous !== undefined) prompt.push(replayMarkerMessage());
    prompt.push(...encodeConversation(request.messages, (part) => this.keepReasoning(part)));
    const input = await this.encodeInput(prompt, previous?.items ?? []);
    const output = await postCompact({
      url: `${this.settings.baseURL}/responses/compact`,
      headers: { authorization: `Bearer ${this.settings.apiKey ?? ''}`, ...this.options.headers },
      body: { model: this.modelId, input },
      signal: options.signal,
      errors: this.errorContext(),
      retry: this.settings.retry,
      idleTimeoutMs: this.settings.idleTimeoutMs,
    });
    return opaqueStateOf({
      provider: this.provider,
      modelId: this.modelId,
      items: output,
      compacted: request.messages,
      previous,
    });
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
      const providerOptions = this.providerOptions({});
      await model.doStream({ prompt, ...(providerOptions === undefined ? {} : { providerOptions }) });
    } catch (error) {
      if (captured === undefined) throw error;
    }
    if (captured === undefined)
      throw new InvalidInputError({ message: 'The compaction request could not be encoded.' });
    return (JSON.parse(captured) as { input?: JsonValue }).input ?? [];
  }
}
