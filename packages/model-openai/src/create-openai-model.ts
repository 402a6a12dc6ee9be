import { modelProfile, splitTableOptions, type TableModelOptions } from '@forge/ai-sdk-bridge';
import { OPENAI_CAPABILITIES } from './capabilities.js';
import { createO200kEstimator } from './o200k-estimator.js';
import { OpenAIModel } from './openai-adapter.js';
import type { OpenAIModelOptions } from './settings.js';

export interface CreateOpenAIModelOptions extends OpenAIModelOptions, TableModelOptions {}

/**
 * An OpenAI adapter with its capability table entry and the exact o200k estimator. A window or
 * maximum output in `capabilities` (from configuration) overrides the table and is reported with
 * source `config`; an unknown id gets the conservative fallback window, source `fallback`. Prices
 * come from `prices` (configuration), else the table; an id the table does not know has none.
 */
export function createOpenAIModel(options: CreateOpenAIModelOptions): OpenAIModel {
  const { adapter, table } = splitTableOptions(options);
  return new OpenAIModel(
    adapter,
    modelProfile(OPENAI_CAPABILITIES.capabilities(options.modelId, table), createO200kEstimator()),
  );
}
