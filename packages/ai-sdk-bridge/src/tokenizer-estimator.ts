import {
  createRequestEstimator,
  type ChatLayout,
  type FramingOverhead,
  type Message,
  type ModelRequest,
  type RequestEstimator,
  type TokenEstimate,
} from '@forge/core';
import type { TextTokenizer } from './hugging-face-tokenizer.js';

/** A request estimator whose tokenizer is loaded on first use. */
export interface TokenizerEstimator {
  estimate(request: ModelRequest): Promise<TokenEstimate>;
  /** Tokens one message adds to a request, framing included. */
  countMessage(message: Message): Promise<number>;
  /** `countMessage` of each message, in order (the adapter's `countMessageTokens`). */
  countMessages(messages: readonly Message[]): Promise<number[]>;
}

export interface TokenizerEstimatorOptions {
  /** Loads the provider's tokenizer; called once, on the first estimate. */
  readonly load: () => Promise<TextTokenizer>;
  /** The provider's chat template, when known; otherwise `overhead` bounds the framing. */
  readonly layout?: ChatLayout;
  readonly overhead?: Partial<FramingOverhead>;
}

/**
 * Core's request estimator over a provider tokenizer (method `provider-tokenizer`, confidence
 * `exact`), loaded lazily so that nothing pays for a tokenizer until a request is first measured.
 * Message counts are cached, so a warm preflight only tokenizes new messages.
 */
export function createTokenizerEstimator(options: TokenizerEstimatorOptions): TokenizerEstimator {
  let estimator: Promise<RequestEstimator> | undefined;
  const ready = (): Promise<RequestEstimator> => {
    estimator ??= options.load().then((tokenizer) =>
      createRequestEstimator({
        countText: (text) => tokenizer.count(text),
        method: 'provider-tokenizer',
        confidence: 'exact',
        ...(options.layout === undefined ? {} : { layout: options.layout }),
        ...(options.overhead === undefined ? {} : { overhead: options.overhead }),
      }),
    );
    // A failed load is retried on the next estimate rather than failing every request after it.
    estimator.catch(() => {
      estimator = undefined;
    });
    return estimator;
  };
  return {
    estimate: async (request) => (await ready()).estimate(request),
    countMessage: async (message) => (await ready()).countMessage(message),
    countMessages: async (messages) => (await ready()).countMessages(messages),
  };
}
