import { modelProfile } from '@forge/ai-sdk-bridge';
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
  const estimator =
    options.tokenizer === undefined ? createConservativeEstimator() : compatibleTokenizerEstimator(options.tokenizer);
  return new CompatibleModel(options, modelProfile(compatibleCapabilities(options, options.prices), estimator));
}
