import path from 'node:path';
import type { CompactionConfig, ForgeConfig, ValueProvenance } from '@forge/config';
import type { ModelAdapter } from '@forge/core';
import type { CompactionStrategySetting } from '@forge/core/compaction';
import type { Redactor } from '@forge/core/redaction';
import { OpaqueStateStore } from '@forge/persistence';
import { type SessionCompactionOptions } from '@forge/sessions';
import { CliError, UsageError } from '../cli-error.js';
import { configuredModelError } from '../config/configured-model-error.js';

/** Where provider-native compaction states live in FORGE_HOME (one 0700 directory per session). */
export function nativeStateDirectory(forgeHome: string): string {
  return path.join(forgeHome, 'state', 'native-compaction');
}

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

/** What every checkpoint of a Forge session keeps, whoever makes it: every user request and the conditions stated in them. */
export const SESSION_CHECKPOINT_OPTIONS = { requests: 'all' } as const satisfies SessionCompactionOptions;

/**
 * How this process's sessions compact: the configured strategy (or the one a command chose) and
 * the store of provider-native states — on disk only with `context.providerNative.persist`. With
 * persistence off, states written while it was on are deleted: they hold the retained messages in
 * plain text, and the user no longer wants them kept.
 */
export async function sessionCompaction(input: {
  readonly config: Pick<ForgeConfig, 'compaction' | 'providerNative' | 'workingSet'>;
  readonly forgeHome: string;
  readonly redactor: Redactor;
  readonly strategy: CompactionStrategySetting;
}): Promise<SessionCompactionOptions> {
  const persist = input.config.providerNative.persist;
  const opaqueStates = new OpaqueStateStore({
    directory: nativeStateDirectory(input.forgeHome),
    persist,
    redactor: input.redactor,
  });
  if (!persist) await opaqueStates.clearAll();
  return { ...SESSION_CHECKPOINT_OPTIONS, strategy: input.strategy, opaqueStates, workingSet: input.config.workingSet };
}
