import { AuthError, type Message, type ModelAdapter, type ModelRequest, type TokenEstimate } from '@forge/core';

/** How an adapter counts: a whole request, and each message of a history (the tail cuts). */
export interface Estimator {
  readonly estimateRequestTokens: (request: ModelRequest) => Promise<TokenEstimate>;
  readonly countMessageTokens: (messages: readonly Message[]) => Promise<readonly number[]>;
}

/**
 * An adapter that is `adapter` in every respect but how it counts: the CLI's thin layer for
 * calibration, so that every count the budget, the view and compaction make — whole requests and
 * the per-message counts tails are cut with — goes through `estimator`. Everything else —
 * streaming, native compaction, capabilities, anything a later contract adds — is the adapter's
 * own, called on the adapter itself.
 */
export function withEstimator(adapter: ModelAdapter, estimator: Estimator): ModelAdapter {
  return new Proxy(adapter, {
    get(target, key) {
      if (key === 'estimateRequestTokens') return estimator.estimateRequestTokens;
      if (key === 'countMessageTokens') return estimator.countMessageTokens;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...values: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * `adapter` for measuring only (made without its API key): it estimates, and refuses to stream or
 * compact with the `AuthError` that names the missing key.
 */
export function measuringOnly(adapter: ModelAdapter, missing: string): ModelAdapter {
  const refuse = (): never => {
    throw new AuthError({ message: missing });
  };
  return {
    specificationVersion: adapter.specificationVersion,
    provider: adapter.provider,
    modelId: adapter.modelId,
    capabilities: adapter.capabilities,
    estimateRequestTokens: (request) => adapter.estimateRequestTokens(request),
    countMessageTokens: (messages) => adapter.countMessageTokens(messages),
    doStream: () => ({
      [Symbol.asyncIterator]: () => ({ next: async () => refuse() }),
    }),
    ...(adapter.compact === undefined ? {} : { compact: async () => refuse() }),
  };
}
