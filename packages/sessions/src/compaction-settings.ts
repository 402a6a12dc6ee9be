import type { CompactionStrategySetting } from '@forge/core/compaction';
import type { Redactor } from '@forge/core/redaction';
import { nativeStateDirectory, OpaqueStateStore } from '@forge/persistence';
import type { SessionCompactionOptions } from './session-compaction.js';

/** What every checkpoint of a Forge session keeps, whoever makes it: every user request and the conditions stated in them. */
export const SESSION_CHECKPOINT_OPTIONS = { requests: 'all' } as const satisfies SessionCompactionOptions;

/**
 * How this process's sessions compact: the configured strategy (or the one a command chose) and
 * the store of provider-native states — on disk only with `context.providerNative.persist`. With
 * persistence off, states written while it was on are deleted: they hold the retained messages in
 * plain text, and the user no longer wants them kept.
 */
export async function sessionCompaction(input: {
  readonly config: {
    readonly providerNative: { readonly persist: boolean };
    readonly workingSet: SessionCompactionOptions['workingSet'];
  };
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
