import { resolveModelCapabilities, type ContextCapabilities, type PriceSheet } from '@forge/core';
import type { CompatibleModelConfig } from './settings.js';

/**
 * Capabilities of a model behind an OpenAI-compatible server. Such a server says nothing reliable
 * about its window (it depends on how it was started, e.g. Ollama's `num_ctx`), so the limits come
 * from the configuration entry, source `config`. Counting is exact when the entry names the
 * model's tokenizer, otherwise core's conservative estimate (the server's tokenizer is not known).
 * Prices exist only when configuration sets them: a local server may cost nothing, a gateway
 * anything, so none is assumed.
 */
export function compatibleCapabilities(
  entry: Pick<CompatibleModelConfig, 'modelId' | 'contextWindowTokens' | 'maxOutputTokens' | 'tokenizer'>,
  prices?: PriceSheet,
): ContextCapabilities {
  return resolveModelCapabilities({
    modelId: entry.modelId,
    lookup: () => undefined,
    ...(prices === undefined ? {} : { configuredPrices: prices }),
    configured: {
      contextWindowTokens: entry.contextWindowTokens,
      ...(entry.maxOutputTokens === undefined ? {} : { maxOutputTokens: entry.maxOutputTokens }),
    },
    estimation: entry.tokenizer === undefined ? 'conservative-fallback' : 'provider-tokenizer',
    nativeCompaction: 'unsupported',
    continuationProjection: 'adapter-owned',
  });
}
