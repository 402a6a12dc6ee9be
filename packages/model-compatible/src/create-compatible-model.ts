import { createConservativeEstimator } from '@forge/core';
import { compatibleCapabilities } from './capabilities.js';
import { CompatibleModel } from './compatible-adapter.js';
import { compatibleTokenizerEstimator } from './tokenizers/index.js';
import type { CompatibleModelOptions } from './settings.js';

/**
 * An adapter for one configured OpenAI-compatible model: limits from its entry; requests counted
 * with the entry's `tokenizer` (loaded on the first estimate), else conservatively.
 */
export function createCompatibleModel(options: CompatibleModelOptions): CompatibleModel {
  const capabilities = compatibleCapabilities(options, options.prices);
  if (options.tokenizer !== undefined) {
    const estimator = compatibleTokenizerEstimator(options.tokenizer);
    return new CompatibleModel(options, { capabilities, estimate: (request) => estimator.estimate(request), countMessages: (messages) => estimator.countMessages(messages) });
  }
  const estimator = createConservativeEstimator();
  return new CompatibleModel(options, { capabilities, estimate: async (request) => estimator.estimate(request), countMessages: async (messages) => estimator.countMessages(messages) });
}
