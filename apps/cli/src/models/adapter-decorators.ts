import { AuthError, type ModelAdapter, type ModelRequest, type TokenEstimate } from '@forge/core';

/**
 * An adapter that is `adapter` in every respect but how it estimates: the CLI's thin layer for
 * calibration, so that every count the budget and compaction make goes through `estimate`.
 */
export function withEstimator(adapter: ModelAdapter, estimate: (request: ModelRequest) => Promise<TokenEstimate>): ModelAdapter {
  const compact = adapter.compact;
  return {
    specificationVersion: adapter.specificationVersion,
    provider: adapter.provider,
    modelId: adapter.modelId,
    get capabilities() {
      return adapter.capabilities;
    },
    estimateRequestTokens: estimate,
    doStream: (request, options) => adapter.doStream(request, options),
    ...(compact === undefined ? {} : { compact: (request, options) => compact.call(adapter, request, options) }),
  };
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
