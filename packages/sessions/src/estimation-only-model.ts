import { createConservativeEstimator, DEFAULT_CONTEXT_POLICY, InvalidInputError, type ModelAdapter } from '@forge/core';

/**
 * A model adapter that only estimates, with the conservative counter: for compacting where the
 * engine's own adapter is not at hand (the REPL, the Codex engine). It never sends anything. Its
 * window is the one the engine reported, when given, else the fallback window.
 */
export function estimationOnlyModel(label: string, window?: { readonly contextWindowTokens: number }): ModelAdapter {
  const estimator = createConservativeEstimator();
  const colon = label.indexOf(':');
  return {
    specificationVersion: 'forge-model-v1',
    provider: colon === -1 ? 'unknown' : label.slice(0, colon),
    modelId: colon === -1 ? label : label.slice(colon + 1),
    capabilities: {
      contextWindowTokens: window?.contextWindowTokens ?? DEFAULT_CONTEXT_POLICY.fallbackContextWindowTokens,
      nativeCompaction: 'unsupported',
      continuationProjection: 'adapter-owned',
      estimation: 'conservative-fallback',
      source: 'fallback',
    },
    estimateRequestTokens: async (request) => estimator.estimate(request),
    countMessageTokens: async (messages) => estimator.countMessages(messages),
    doStream: () => {
      throw new InvalidInputError({
        message: `The estimation-only model for ${label} cannot send requests; this is a bug in Forge.`,
      });
    },
  };
}
