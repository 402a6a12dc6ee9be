import { createAnthropic } from '@ai-sdk/anthropic';
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import {
  AiSdkModel,
  classifyProviderError,
  encodeConversation,
  providerSettings,
  type AiSdkVendor,
  type ModelProfile,
} from '@forge/ai-sdk-bridge';
import {
  countTextConservatively,
  InvalidInputError,
  type ModelCallOptions,
  type ModelRequest,
  type ModelStreamPart,
  type NativeCompactionRequest,
  opaqueStateOf,
  type OpaqueProviderState,
  type TokenEstimate,
  withoutReplacedHistory,
} from '@forge/core';
import { withBreakpoints } from './breakpoints.js';
import {
  canReplay,
  compactionBlocks,
  compactionMessage,
  compactionText,
  supportsNativeCompaction,
} from './native-compaction.js';
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
  overflowTokens: readOverflowTokens,
  languageModel: (context) => createAnthropic(providerSettings(context)).messages(context.options.modelId),
  preparePrompt: (prompt, request, options) =>
    withBreakpoints(prompt, request, options.cacheLifetime ?? DEFAULT_ANTHROPIC_CACHE_LIFETIME),
};

/** `prompt is too long: 210000 tokens > 200000 maximum`: the requested size comes first. */
function readOverflowTokens(message: string): { limitTokens: number; requestedTokens: number } | undefined {
  const match = /(\d[\d,]*)\s*tokens?\s*>\s*(\d[\d,]*)\s*maximum/i.exec(message);
  if (match === null) return undefined;
  const number = (text: string | undefined) => Number((text ?? '').replaceAll(',', ''));
  return { requestedTokens: number(match[1]), limitTokens: number(match[2]) };
}

/** The vendor for one model: with native compaction where Anthropic offers it for that model. */
function vendorFor(modelId: string): AiSdkVendor<AnthropicModelOptions> {
  return supportsNativeCompaction(modelId)
    ? { ...ANTHROPIC_VENDOR, nativeCompaction: 'opaque-provider-item' }
    : ANTHROPIC_VENDOR;
}

/**
 * Forge's adapter for Claude models; cache writes and reads are reported as Anthropic bills them.
 * Models that compact on the server offer provider-native compaction (`compact`): its blocks are
 * replayed in place of the checkpoint and the messages they replaced, to the same model only.
 */
export class AnthropicModel extends AiSdkModel<AnthropicModelOptions> {
  constructor(options: AnthropicModelOptions, profile: ModelProfile) {
    super(vendorFor(options.modelId), options, profile);
  }

  /** Estimates the request as sent: with replayed blocks, without the checkpoint and the messages they replace. */
  override estimateRequestTokens(request: ModelRequest): Promise<TokenEstimate> {
    const replay = canReplay(request.nativeState, this.modelId) ? request.nativeState : undefined;
    if (replay === undefined) return super.estimateRequestTokens(request);
    return this.estimateReplaying(request, replay, countTextConservatively(compactionText(replay)));
  }

  override doStream(request: ModelRequest, options: ModelCallOptions): AsyncIterable<ModelStreamPart> {
    const replay = canReplay(request.nativeState, this.modelId) ? request.nativeState : undefined;
    if (replay === undefined) return this.stream(request, options);
    return this.stream(withoutReplacedHistory(request, replay), options, {
      checkpointReplacement: [compactionMessage(replay)],
    });
  }

  /**
   * Compacts `request.messages` (after the previous state, when it belongs to this model) with one
   * request carrying the SDK's `compaction` option, and keeps the compaction blocks untouched.
   */
  async compact(request: NativeCompactionRequest, options: ModelCallOptions): Promise<OpaqueProviderState> {
    if (this.capabilities.nativeCompaction !== 'opaque-provider-item') {
      throw new InvalidInputError({
        message: `anthropic:${this.modelId} offers no server compaction; choose another compaction strategy.`,
      });
    }
    if (request.messages.length === 0 && request.previous === undefined) {
      throw new InvalidInputError({
        message: 'Nothing to compact: the compaction request has no messages and no previous state.',
      });
    }
    const previous = canReplay(request.previous, this.modelId) ? request.previous : undefined;
    const prompt: LanguageModelV4Prompt = [];
    if (request.instructions.length > 0) prompt.push({ role: 'system', content: request.instructions });
    if (previous !== undefined) prompt.push(compactionMessage(previous));
    prompt.push(...encodeConversation(request.messages, (part) => this.keepReasoning(part)));
    let result: Awaited<ReturnType<ReturnType<AnthropicModel['languageModel']>['doGenerate']>>;
    try {
      result = await this.languageModel().doGenerate({
        prompt,
        providerOptions: { anthropic: { compaction: { type: 'summarize' } } },
        ...(options.signal === undefined ? {} : { abortSignal: options.signal }),
      });
    } catch (error) {
      throw classifyProviderError(error, this.errorContext());
    }
    const blocks = compactionBlocks(result.content);
    if (blocks.length === 0) {
      throw new InvalidInputError({
        message: `Anthropic at ${this.settings.baseURL} answered the compaction request without a compaction block.`,
      });
    }
    return opaqueStateOf({
      provider: this.provider,
      modelId: this.modelId,
      items: blocks,
      compacted: request.messages,
      previous,
    });
  }
}
