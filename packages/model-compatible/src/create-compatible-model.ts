import { createConservativeEstimator } from '@forge/core';
import { compatibleCapabilities } from './capabilities.js';
import { CompatibleModel } from './compatible-adapter.js';
import type { CompatibleModelOptions } from './settings.js';

/** An adapter for one configured OpenAI-compatible model: limits from its entry, conservative estimates. */
export function createCompatibleModel(options: CompatibleModelOptions): CompatibleModel {
  const estimator = createConservativeEstimator();
  return new CompatibleModel(options, { capabilities: compatibleCapabilities(options, options.prices), estimate: async (request) => estimator.estimate(request) });
}
