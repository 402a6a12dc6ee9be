import { countWithBoundedRuns, createTokenizerEstimator, type TokenizerEstimator } from '@forge/ai-sdk-bridge';
import type { FramingOverhead } from '@forge/core';

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
  tokenizer ??= import('gpt-tokenizer/encoding/o200k_base').then(({ countTokens }) => ({
    count: (text: string) => countTokens(text, NO_SPECIAL_TOKENS),
  }));
  return tokenizer;
}

/**
 * Exact o200k tokens of `text` as ordinary text: special-token text such as `<|endoftext|>` in
 * user content is encoded like any other characters (no special token, no error), which is what
 * the provider does with message content. Very long runs of one character class are counted in
 * slices, never lower (see `countWithBoundedRuns`).
 */
export function countO200kTokens(tokenizer: O200kTokenizer, text: string): number {
  return countWithBoundedRuns((slice) => tokenizer.count(slice), text);
}

/** An estimator for OpenAI models: exact o200k text counts, modelled framing; see {@link createO200kEstimator}. */
export type O200kEstimator = TokenizerEstimator;

/**
 * The request estimator of the OpenAI adapter: core's request estimator with exact o200k counts
 * (method `provider-tokenizer`, confidence `exact`) and {@link OPENAI_FRAMING_OVERHEAD}. Message
 * counts are cached, so a warm preflight only tokenizes new messages.
 */
export function createO200kEstimator(options: { readonly overhead?: Partial<FramingOverhead> } = {}): O200kEstimator {
  return createTokenizerEstimator({
    load: async () => {
      const loaded = await loadO200kTokenizer();
      return { name: 'o200k_base', count: (text) => countO200kTokens(loaded, text) };
    },
    overhead: { ...OPENAI_FRAMING_OVERHEAD, ...options.overhead },
  });
}
