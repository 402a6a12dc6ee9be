import { AuthError, type ModelAdapter, type ModelRequest, type TokenEstimate } from '@forge/core';

/**
 * An adapter that is `adapter` in every respect but how it estimates: the CLI's thin layer for
 * calibration, so that every count the budget and compaction make goes through `estimate`.
 * Everything else — streaming, native compaction, capabilities, anything a later contract adds —
 * is the adapter's own, called on the adapter itself.
 */
export function withEstimator(adapter: ModelAdapter, estimate: (request: ModelRequest) => Promise<TokenEstimate>): ModelAdapter {
  return new Proxy(adapter, {
    get(target, key) {
      if (key === 'estimateRequestTokens') return estimate;
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
    doStream: () => ({
      [Symbol.asyncIterator]: () => ({ next: async () => refuse() }),
    }),
    ...(adapter.compact === undefined ? {} : { compact: async () => refuse() }),
  };
}
