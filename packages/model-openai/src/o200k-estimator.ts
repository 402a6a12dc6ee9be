import {
  createRequestEstimator,
  type FramingOverhead,
  type Message,
  type ModelRequest,
  type RequestEstimator,
  type TokenEstimate,
} from '@forge/core';

/**
 * Framing for the OpenAI Responses API on top of exact o200k text counts. Per-message and per-item
 * values are upper bounds of the chat framing OpenAI documents (role and boundary tokens, about
 * three per message); `perRequest` also covers the preamble the service adds to every request
 * (model identity, dates, channel and reasoning settings), which is not visible offline.
 */
export const OPENAI_FRAMING_OVERHEAD: Partial<FramingOverhead> = {
  perMessage: 4,
  perToolCall: 8,
  perToolResult: 8,
  perReasoning: 4,
  perToolDefinition: 10,
  perRequest: 64,
  marginRatio: 0,
};

/** Counts o200k tokens of ordinary text. */
export interface O200kTokenizer {
  count(text: string): number;
}

let tokenizer: Promise<O200kTokenizer> | undefined;
const NO_SPECIAL_TOKENS = { disallowedSpecial: new Set<string>() };

/**
 * The o200k tokenizer, loaded on first use and shared by the process (loading parses about
 * 200,000 ranks, roughly half a second), so nothing pays for it until a request is first
 * estimated. The implementation is gpt-tokenizer: identical counts to js-tiktoken and the WASM
 * reference, several times faster (see docs/context-management.md and scripts/bench-budget.ts).
 * Special-token text is not disallowed, so it is encoded as ordinary text instead of throwing.
 */
export function loadO200kTokenizer(): Promise<O200kTokenizer> {
  tokenizer ??= import('gpt-tokenizer/encoding/o200k_base').then(({ countTokens }) => ({ count: (text: string) => countTokens(text, NO_SPECIAL_TOKENS) }));
  return tokenizer;
}

/*
 * Byte-pair merging (in gpt-tokenizer as in js-tiktoken) takes time quadratic in the length of one
 * pre-tokenized piece: 100,000 identical letters take over ten seconds. A piece
 * is a run of letters (a CJK paragraph without punctuation), of punctuation or of whitespace, so
 * such runs of 128 characters or more are cut into 64-character slices and encoded apart. Each
 * cut can change the count at its edges; one token per cut is added so the count never comes out
 * lower. Text without such runs — nearly all text — takes the fast, exact path.
 */
const LONG_RUN = /[\p{L}\p{M}]{128,}|[^\s\p{L}\p{N}]{128,}|\s{128,}/u;
const LONG_RUNS = /[\p{L}\p{M}]{128,}|[^\s\p{L}\p{N}]{128,}|\s{128,}/gu;
const SLICE = 64;

/**
 * Exact o200k tokens of `text` as ordinary text: special-token text such as `<|endoftext|>` in
 * user content is encoded like any other characters (no special token, no error), which is what
 * the provider does with message content.
 */
export function countO200kTokens(tokenizer: O200kTokenizer, text: string): number {
  if (!LONG_RUN.test(text)) return tokenizer.count(text);
  let tokens = 0;
  let start = 0;
  for (const match of text.matchAll(LONG_RUNS)) {
    const runStart = match.index;
    const runEnd = runStart + match[0].length;
    tokens += tokenizer.count(text.slice(start, runStart));
    let sliceStart = runStart;
    while (sliceStart < runEnd) {
      let sliceEnd = Math.min(runEnd, sliceStart + SLICE);
      // never split a surrogate pair
      if (sliceEnd < runEnd && /[\udc00-\udfff]/.test(text.charAt(sliceEnd))) sliceEnd += 1;
      tokens += tokenizer.count(text.slice(sliceStart, sliceEnd)) + 1;
      sliceStart = sliceEnd;
    }
    start = runEnd;
  }
  return tokens + tokenizer.count(text.slice(start));
}

/** An estimator for OpenAI models: exact o200k text counts, modelled framing; see {@link createO200kEstimator}. */
export interface O200kEstimator {
  estimate(request: ModelRequest): Promise<TokenEstimate>;
  /** Tokens one message adds to a request, framing included. */
  countMessage(message: Message): Promise<number>;
  /** `countMessage` of each message, in order. */
  countMessages(messages: readonly Message[]): Promise<number[]>;
}

/**
 * The request estimator of the OpenAI adapter: core's request estimator with exact o200k counts
 * (method `provider-tokenizer`, confidence `exact`) and {@link OPENAI_FRAMING_OVERHEAD}. Message
 * counts are cached, so a warm preflight only tokenizes new messages.
 */
export function createO200kEstimator(options: { readonly overhead?: Partial<FramingOverhead> } = {}): O200kEstimator {
  let estimator: RequestEstimator | undefined;
  const ready = async (): Promise<RequestEstimator> => {
    if (estimator !== undefined) return estimator;
    const loaded = await loadO200kTokenizer();
    estimator ??= createRequestEstimator({
      countText: (text) => countO200kTokens(loaded, text),
      method: 'provider-tokenizer',
      confidence: 'exact',
      overhead: { ...OPENAI_FRAMING_OVERHEAD, ...options.overhead },
    });
    return estimator;
  };
  return {
    estimate: async (request) => (await ready()).estimate(request),
    countMessage: async (message) => (await ready()).countMessage(message),
    countMessages: async (messages) => (await ready()).countMessages(messages),
  };
}
