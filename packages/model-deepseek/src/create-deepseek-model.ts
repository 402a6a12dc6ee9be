import type { PriceSheet } from '@forge/core';
import { deepSeekCapabilities } from './capabilities.js';
import { DeepSeekModel } from './deepseek-adapter.js';
import { createDeepSeekEstimator } from './deepseek-tokenizer.js';
import type { DeepSeekModelOptions } from './settings.js';

export interface CreateDeepSeekModelOptions extends DeepSeekModelOptions {
  /** Window for ids the capability table does not know (default 32,768; from `context.fallbackContextWindowTokens`). */
  readonly fallbackContextWindowTokens?: number;
  /** Prices from configuration; they replace the capability table's sheet. */
  readonly prices?: PriceSheet;
}

/**
 * A DeepSeek adapter with its capability table entry and DeepSeek-V3's tokenizer (loaded on the first estimate). A window
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
  const estimator = createDeepSeekEstimator();
  return new DeepSeekModel(rest, { capabilities, estimate: (request) => estimator.estimate(request), countMessages: (messages) => estimator.countMessages(messages) });
}
