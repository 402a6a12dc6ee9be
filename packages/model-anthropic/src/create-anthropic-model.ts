import { modelProfile, splitTableOptions, type TableModelOptions } from '@forge/ai-sdk-bridge';
import { createConservativeEstimator } from '@forge/core';
import { AnthropicModel } from './anthropic-adapter.js';
import { anthropicCapabilities } from './capabilities.js';
import { checkCacheLifetime, type AnthropicModelOptions } from './settings.js';

export interface CreateAnthropicModelOptions extends AnthropicModelOptions, TableModelOptions {}

/**
 * A Claude adapter with its capability table entry, priced at the write rate of its cache
 * lifetime, counting requests with core's conservative estimate (no public tokenizer exists for
 * current Claude models; calibration from usage corrects it). A window or maximum output in
 * `capabilities` (from configuration) overrides the table, source `config`.
 */
export function createAnthropicModel(options: CreateAnthropicModelOptions): AnthropicModel {
  const lifetime = checkCacheLifetime(options.cacheLifetime);
  const { adapter, table } = splitTableOptions(options);
  return new AnthropicModel(
    { ...adapter, cacheLifetime: lifetime },
    modelProfile(anthropicCapabilities(options.modelId, lifetime, table), createConservativeEstimator()),
  );
}
