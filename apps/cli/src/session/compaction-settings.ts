import type { CompactionConfig, ValueProvenance } from '@forge/config';
import type { ModelAdapter } from '@forge/core';
import type { CompactionStrategySetting } from '@forge/core/compaction';
import { CliError, UsageError } from '../cli-error.js';
import { configuredModelError } from '../config/configured-model-error.js';

/**
 * The strategy `context.compaction` configures. The compactor of `model-structured` is resolved
 * like `--model`, so a missing key is the usual usage error, named after the configuration key.
 */
export async function configuredStrategy(
  compaction: CompactionConfig,
  resolveModel: (name: string, chooseWith?: string) => Promise<ModelAdapter>,
  provenance: Readonly<Record<string, ValueProvenance>> = {},
): Promise<CompactionStrategySetting> {
  if (compaction.strategy === 'forge-state') return { kind: 'forge-state' };
  if (compaction.strategy === 'provider-native') return { kind: 'provider-native' };
  // The configuration refuses model-structured without a model; this only narrows the type.
  if (compaction.model === undefined)
    throw new UsageError('context.compaction.strategy model-structured needs context.compaction.model');
  try {
    return { kind: 'model-structured', compactor: await resolveModel(compaction.model, 'context.compaction.model') };
  } catch (error) {
    const key = 'context.compaction.model';
    if (error instanceof CliError)
      throw configuredModelError(error, { key, value: compaction.model, provenance: provenance[key] });
    throw new UsageError(
      `context.compaction.model ${compaction.model}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
