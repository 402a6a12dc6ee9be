import type { JsonObject } from '../json.js';
import type { Message, ReasoningPart, ToolCallPart, UserMessage } from '../messages.js';
import type { PriceSheet } from '../pricing/price-sheet.js';
import type { PromptCacheRules } from '../pricing/prompt-cache.js';
import type { OpaqueProviderState } from './opaque-state.js';

/** What the model is told about a tool: name, description and a JSON Schema for its input. */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonObject;
}

/** Where a model's limits came from. Budget events carry it so a guessed window is never mistaken for a known one. */
export type CapabilitySource = 'table' | 'config' | 'fallback';

export type TokenEstimateMethod = 'provider-tokenizer' | 'sdk' | 'conservative-fallback';

export interface ModelCapabilities {
  /** Total tokens the model accepts, input and output together. */
  readonly contextWindowTokens: number;
  /** The most output tokens one call may produce, when the provider publishes it. */
  readonly maxOutputTokens?: number;
  readonly nativeCompaction: 'unsupported' | 'opaque-provider-item';
  /** `adapter-owned`: the adapter decides how in-run continuation (tool calls, reasoning) is encoded. */
  readonly continuationProjection: 'unsupported' | 'adapter-owned';
  readonly estimation: TokenEstimateMethod;
  readonly source: CapabilitySource;
  /** What the model costs, with the date and source of the figures. Absent: costs are reported in tokens only. */
  readonly prices?: PriceSheet;
  /** How the provider caches request prefixes, when known. */
  readonly promptCache?: PromptCacheRules;
}

/**
 * One model request, split by budget category. The adapter encodes it for its provider in this
 * order: instructions, checkpoint view, history, current request, continuation; tools alongside.
 */
export interface ModelRequest {
  /** Frozen instructions for the run (system prompt plus AGENTS.md files). */
  readonly instructions: string;
  /** The rendered checkpoint view, when the session has one. */
  readonly checkpoint?: string;
  /** Earlier turns of the session selected for this request. */
  readonly history: readonly Message[];
  /** The user message this run answers. Never dropped or summarized. */
  readonly currentRequest: UserMessage;
  /** Assistant and tool messages produced so far in this run. */
  readonly continuation: readonly Message[];
  readonly tools: readonly ToolDefinition[];
  readonly maxOutputTokens?: number;
  /**
   * Provider-native compaction state standing in for `checkpoint` and the messages it covers.
   * Only the adapter and model that made it use it; any other adapter ignores it and sends
   * `checkpoint` and `history` as usual, so a model switch rebuilds from the transcript.
   */
  readonly nativeState?: OpaqueProviderState;
}

/** Input of a provider-native compaction: complete turns only, never the current request. */
export interface NativeCompactionRequest {
  readonly instructions: string;
  /** The state of the previous boundary: the new state is made from the native history that includes it. */
  readonly previous?: OpaqueProviderState;
  /** Messages to compact, oldest first (those after what `previous` covers). */
  readonly messages: readonly Message[];
}

/** Token counts per category of a request. They sum to `TokenEstimate.tokens`. */
export interface TokenCategories {
  readonly instructions: number;
  readonly checkpoint: number;
  readonly history: number;
  readonly request: number;
  readonly continuation: number;
  readonly toolSchemas: number;
  /** Per-message framing and request-level overhead the provider adds. */
  readonly overhead: number;
}

export interface TokenEstimate {
  readonly tokens: number;
  readonly method: TokenEstimateMethod;
  readonly confidence: 'exact' | 'estimated';
  readonly categories: TokenCategories;
  /** Set when the counts were scaled by a correction learned from earlier provider usage of `model`. */
  readonly calibration?: { readonly factor: number; readonly model: string };
}

/** Token usage a provider reported for one call. Fields the provider did not report are undefined. */
export interface Usage {
  readonly inputTokens: number | undefined;
  /** Input tokens served from the prompt cache (part of `inputTokens`, not extra context). */
  readonly cacheReadTokens: number | undefined;
  /** Input tokens written to the prompt cache by this call. */
  readonly cacheWriteTokens: number | undefined;
  readonly outputTokens: number | undefined;
  /** Output tokens spent on reasoning (part of `outputTokens`). */
  readonly reasoningTokens: number | undefined;
}

export type FinishReason = 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other';

/** What a model stream yields. Errors are thrown from the iterator as `ForgeError` subclasses. */
export type ModelStreamPart =
  | { readonly type: 'text-delta'; readonly delta: string }
  | { readonly type: 'reasoning'; readonly part: ReasoningPart }
  | { readonly type: 'tool-call'; readonly part: ToolCallPart }
  | { readonly type: 'finish'; readonly finishReason: FinishReason; readonly usage: Usage };

export interface ModelCallOptions {
  readonly signal?: AbortSignal;
  /**
   * The conversation's prompt cache key (`promptCacheKey`): the same for every call of a
   * conversation whose model, tools and instructions are unchanged. It routes the call, it is not
   * content: adapters whose provider keys its prompt cache send it, the others ignore it.
   */
  readonly promptCacheKey?: string;
}

/**
 * The contract every model adapter implements. `do`-prefixed methods are called by the agent
 * loop, not by applications.
 */
export interface ModelAdapter {
  readonly specificationVersion: 'forge-model-v1';
  /** Provider id as used in model ids (`openai`, `deepseek`, `compatible`, `scripted`). */
  readonly provider: string;
  readonly modelId: string;
  readonly capabilities: ModelCapabilities;
  estimateRequestTokens(request: ModelRequest): Promise<TokenEstimate>;
  /**
   * Tokens each message adds to a request when sent as history — content and its framing,
   * counted exactly as `estimateRequestTokens` counts them (for a request whose history is
   * `messages`, the counts sum to its history tokens plus their framing). Forge cuts the recent
   * tail with these counts, so there is one counter for budgets, thresholds and tails. Adapters
   * built on `createRequestEstimator` return its `countMessages`.
   */
  countMessageTokens(messages: readonly Message[]): Promise<readonly number[]>;
  doStream(request: ModelRequest, options: ModelCallOptions): AsyncIterable<ModelStreamPart>;
  /**
   * Present when `capabilities.nativeCompaction` is `opaque-provider-item`: asks the provider to
   * compact the conversation and returns its opaque state untouched.
   */
  compact?(request: NativeCompactionRequest, options: ModelCallOptions): Promise<OpaqueProviderState>;
}

export const emptyUsage: Usage = {
  inputTokens: undefined,
  cacheReadTokens: undefined,
  cacheWriteTokens: undefined,
  outputTokens: undefined,
  reasoningTokens: undefined,
};
