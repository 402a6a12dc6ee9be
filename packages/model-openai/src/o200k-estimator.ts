import {
  createRequestEstimator,
  type FramingOverhead,
  type Message,
  type ModelRequest,
  type RequestEstimator,
  type TokenEstimate,
} from '@forge/core';
import type { Tiktoken } from 'js-tiktoken/lite';

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

let encoder: Promise<Tiktoken> | undefined;

/**
 * The o200k encoder, built on first use and shared by the process. Building it parses about
 * 200,000 ranks (about a second), so nothing loads it until a request is first estimated; only
 * the `lite` entry and the o200k ranks are imported.
 */
export function loadO200kEncoder(): Promise<Tiktoken> {
  encoder ??= (async () => {
    const [{ Tiktoken }, { default: ranks }] = await Promise.all([import('js-tiktoken/lite'), import('js-tiktoken/ranks/o200k_base')]);
    return new Tiktoken(ranks);
  })();
  return encoder;
}

/*
 * js-tiktoken merges byte pairs in time quadratic in the length of one pre-tokenized piece. A piece
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
export function countO200kTokens(tokenizer: Tiktoken, text: string): number {
  if (!LONG_RUN.test(text)) return tokenizer.encode(text, [], []).length;
  let tokens = 0;
  let start = 0;
  for (const match of text.matchAll(LONG_RUNS)) {
    const runStart = match.index;
    const runEnd = runStart + match[0].length;
    tokens += tokenizer.encode(text.slice(start, runStart), [], []).length;
    let sliceStart = runStart;
    while (sliceStart < runEnd) {
      let sliceEnd = Math.min(runEnd, sliceStart + SLICE);
      // never split a surrogate pair
      if (sliceEnd < runEnd && /[\udc00-\udfff]/.test(text.charAt(sliceEnd))) sliceEnd += 1;
      tokens += tokenizer.encode(text.slice(sliceStart, sliceEnd), [], []).length + 1;
      sliceStart = sliceEnd;
    }
    start = runEnd;
  }
  return tokens + tokenizer.encode(text.slice(start), [], []).length;
}

/** An estimator for OpenAI models: exact o200k text counts, modelled framing; see {@link createO200kEstimator}. */
export interface O200kEstimator {
  estimate(request: ModelRequest): Promise<TokenEstimate>;
  /** Tokens one message adds to a request, framing included. */
  countMessage(message: Message): Promise<number>;
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
    const tokenizer = await loadO200kEncoder();
    estimator ??= createRequestEstimator({
      countText: (text) => countO200kTokens(tokenizer, text),
      method: 'provider-tokenizer',
      confidence: 'exact',
      overhead: { ...OPENAI_FRAMING_OVERHEAD, ...options.overhead },
    });
    return estimator;
  };
  return {
    estimate: async (request) => (await ready()).estimate(request),
    countMessage: async (message) => (await ready()).countMessage(message),
  };
}
