import { modelProfile, splitTableOptions, type TableModelOptions } from '@forge/ai-sdk-bridge';
import { DEEPSEEK_CAPABILITIES } from './capabilities.js';
import { DeepSeekModel } from './deepseek-adapter.js';
import { createDeepSeekEstimator } from './deepseek-tokenizer.js';
import type { DeepSeekModelOptions } from './settings.js';

export interface CreateDeepSeekModelOptions extends DeepSeekModelOptions, TableModelOptions {}

/**
 * A DeepSeek adapter with its capability table entry and DeepSeek-V3's tokenizer (loaded on the first estimate). A window
 * or maximum output in `capabilities` (from configuration) overrides the table, source `config`.
 */
export function createDeepSeekModel(options: CreateDeepSeekModelOptions): DeepSeekModel {
  const { adapter, table } = splitTableOptions(options);
  return new DeepSeekModel(
    adapter,
    modelProfile(DEEPSEEK_CAPABILITIES.capabilities(options.modelId, table), createDeepSeekEstimator()),
  );
}
