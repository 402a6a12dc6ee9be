import type { JsonValue } from '@forge/core';

/** Token counts the loopback server reports; each protocol renders them in its own field names. */
export interface LoopbackUsage {
  readonly inputTokens: number;
  /** Input tokens served from the prompt cache (Responses `cached_tokens`, DeepSeek `prompt_cache_hit_tokens`). */
  readonly cachedInputTokens?: number;
  /** Input tokens written to the prompt cache (Responses `cache_write_tokens`). */
  readonly cacheWriteTokens?: number;
  readonly outputTokens: number;
  readonly reasoningTokens?: number;
}

export interface LoopbackToolCall {
  readonly name: string;
  /** The arguments as the model writes them: a JSON string, or a value the server stringifies. */
  readonly arguments: string | JsonValue;
  readonly callId?: string;
}

/**
 * One successful model turn, rendered in the wire format of whichever endpoint was called:
 * reasoning first, then text, then tool calls, then the completion event with usage.
 */
export interface TurnReply {
  readonly type: 'turn';
  /** Reasoning text, as one string or as the deltas to stream. */
  readonly reasoning?: string | readonly string[];
  /** Responses API only: the opaque `encrypted_content` of the reasoning item. */
  readonly encryptedReasoning?: string;
  /** Answer text, as one string or as the deltas to stream. */
  readonly text?: string | readonly string[];
  readonly toolCalls?: readonly LoopbackToolCall[];
  readonly usage?: LoopbackUsage;
  /** Responses API: answer `response.incomplete` with this reason instead of `response.completed`. */
  readonly incompleteReason?: 'max_output_tokens' | 'content_filter';
}

/** An HTTP error with an OpenAI-shaped JSON body. */
export interface HttpErrorReply {
  readonly type: 'http-error';
  readonly status: number;
  readonly message?: string;
  readonly code?: string;
  readonly errorType?: string;
  /** Extra response headers, e.g. `{ 'retry-after': '1' }`. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Responses API: the stream starts, then reports `response.failed` with this error. */
export interface StreamFailedReply {
  readonly type: 'stream-failed';
  readonly code: string;
  readonly message: string;
  /** Events of this turn streamed before the failure (default: none). */
  readonly turn?: TurnReply;
  readonly afterEvents?: number;
}

/**
 * Where a faulty stream stops: after this many complete events, or `before-completion`: after
 * everything but the protocol's completion (Responses `response.completed`; Chat Completions the
 * chunk with the finish reason and what follows it).
 */
export type StopPoint = number | 'before-completion';

/** The connection is destroyed in the middle of an event, after `afterEvents` complete events. */
export interface CutStreamReply {
  readonly type: 'cut';
  readonly turn: TurnReply;
  readonly afterEvents: StopPoint;
}

/** After `afterEvents` complete events, an event whose data is not JSON, then the stream ends. */
export interface MalformedReply {
  readonly type: 'malformed';
  readonly turn?: TurnReply;
  readonly afterEvents?: StopPoint;
}

/** After `afterEvents` complete events (0: before any), the server stops writing and never ends the response. */
export interface HangReply {
  readonly type: 'hang';
  readonly turn?: TurnReply;
  readonly afterEvents?: StopPoint;
  /** When false, not even the response headers are sent. Default true. */
  readonly sendHeaders?: boolean;
}

/**
 * `POST /v1/responses/compact`: the output keeps the user messages of the input (as the real
 * endpoint does) followed by one compaction item carrying `encryptedContent`. A Messages request
 * with `compaction` (Anthropic's server compaction): one `compaction` block with `summary` as its
 * content and `encryptedContent` as its signature.
 */
export interface CompactionReply {
  readonly type: 'compaction';
  readonly encryptedContent: string;
  /** Messages API: the block's readable summary (default: a fixed sentence). */
  readonly summary?: string;
  readonly itemId?: string;
  readonly usage?: LoopbackUsage;
}

export type LoopbackReply =
  | TurnReply
  | HttpErrorReply
  | StreamFailedReply
  | CutStreamReply
  | MalformedReply
  | HangReply
  | CompactionReply;

/** What the server recorded about one request. */
export interface RecordedRequest {
  readonly method: string;
  /** Path without the query string, e.g. `/v1/responses`. */
  readonly path: string;
  /** Header names are lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body parsed as JSON (undefined when it was not JSON). */
  readonly body: unknown;
  readonly rawBody: string;
}

export type ReplyFunction = (request: RecordedRequest, index: number) => LoopbackReply;

/** Shorthand for a successful turn. */
export function turn(reply: Omit<TurnReply, 'type'>): TurnReply {
  return { type: 'turn', ...reply };
}

/** Splits a string or a list of deltas into the deltas to stream. */
export function deltasOf(value: string | readonly string[] | undefined): readonly string[] {
  if (value === undefined) return [];
  return typeof value === 'string' ? (value.length === 0 ? [] : [value]) : value;
}

export function argumentsText(call: LoopbackToolCall): string {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
}
