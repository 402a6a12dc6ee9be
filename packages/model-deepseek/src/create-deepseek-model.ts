import { createConservativeEstimator, type PriceSheet } from '@forge/core';
import { deepSeekCapabilities } from './capabilities.js';
import { DeepSeekModel } from './deepseek-adapter.js';
import type { DeepSeekModelOptions } from './settings.js';

export interface CreateDeepSeekModelOptions extends DeepSeekModelOptions {
  /** Window for ids the capability table does not know (default 32,768; from `context.fallbackContextWindowTokens`). */
  readonly fallbackContextWindowTokens?: number;
  /** Prices from configuration; they replace the capability table's sheet. */
  readonly prices?: PriceSheet;
}

/**
 * A DeepSeek adapter with its capability table entry and core's conservative estimator. A window
 * or maximum output in `capabilities` (from configuration) overrides the table, source `config`.
 */
export function createDeepSeekModel(options: CreateDeepSeekModelOptions): DeepSeekModel {
  const { capabilities: configured, fallbackContextWindowTokens, prices, ...rest } = options;
  const capabilities = deepSeekCapabilities(options.modelId, {
    configured: {
      ...(configured?.contextWindowTokens === undefined ? {} : { contextWindowTokens: configured.contextWindowTokens }),
      ...(configured?.maxOutputTokens === undefined ? {} : { maxOutputTokens: configured.maxOutputTokens }),
    },
    ...(prices === undefined ? {} : { prices }),
    ...(fallbackContextWindowTokens === undefined ? {} : { fallbackContextWindowTokens }),
  });
  const estimator = createConservativeEstimator();
  return new DeepSeekModel(rest, { capabilities, estimate: async (request) => estimator.estimate(request) });
}
