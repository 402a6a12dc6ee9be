import type { PriceSheet } from '@forge/core';
import { openAICapabilities } from './capabilities.js';
import { createO200kEstimator } from './o200k-estimator.js';
import { OpenAIModel } from './openai-adapter.js';
import type { OpenAIModelOptions } from './settings.js';

export interface CreateOpenAIModelOptions extends OpenAIModelOptions {
  /** Window for ids the capability table does not know (default 32,768; from `context.fallbackContextWindowTokens`). */
  readonly fallbackContextWindowTokens?: number;
  /** Prices from configuration; they replace the capability table's sheet. */
  readonly prices?: PriceSheet;
}

/**
 * An OpenAI adapter with its capability table entry and the exact o200k estimator. A window or
 * maximum output in `capabilities` (from configuration) overrides the table and is reported with
 * source `config`; an unknown id gets the conservative fallback window, source `fallback`. Prices
 * come from `prices` (configuration), else the table; an id the table does not know has none.
 */
export function createOpenAIModel(options: CreateOpenAIModelOptions): OpenAIModel {
  const { capabilities: configured, fallbackContextWindowTokens, prices, ...rest } = options;
  const limits = {
    ...(configured?.contextWindowTokens === undefined ? {} : { contextWindowTokens: configured.contextWindowTokens }),
    ...(configured?.maxOutputTokens === undefined ? {} : { maxOutputTokens: configured.maxOutputTokens }),
  };
  const capabilities = openAICapabilities(options.modelId, {
    configured: limits,
    ...(prices === undefined ? {} : { prices }),
    ...(fallbackContextWindowTokens === undefined ? {} : { fallbackContextWindowTokens }),
  });
  const estimator = createO200kEstimator();
  return new OpenAIModel(rest, { capabilities, estimate: (request) => estimator.estimate(request), countMessages: (messages) => estimator.countMessages(messages) });
}
