import type { ForgeEvent, OpaqueProviderState } from '@forge/core';
import { MAIN_LANE, refusesReplay, type OpaqueStateStore, type StoredCheckpoint } from '@forge/persistence';

/*
 * A provider that refuses a request replaying its own compaction item (it can no longer decrypt
 * it, or the item expired) would refuse it on every later request too. The session watches each
 * turn for that and forgets the state, so the next request sends the portable checkpoint instead.
 */

/** Follows one turn's events: whether its requests replay native state, and whether one such request was refused. */
export class NativeReplayWatch {
  private replaying: boolean;
  refused = false;

  constructor(replayingAtStart: boolean) {
    this.replaying = replayingAtStart;
  }

  observe(event: ForgeEvent): void {
    if (event.type === 'context.compaction.completed' && event.installed)
      this.replaying = event.strategy === 'provider-native';
    else if (event.type === 'model.step.failed' && this.replaying && refusesReplay(event.error)) this.refused = true;
  }
}

/** Forgets the state the current checkpoint refers to, in memory and in `store` (its file too). */
export async function discardRefusedState(input: {
  readonly store: OpaqueStateStore | undefined;
  readonly sessionId: string;
  readonly stored: StoredCheckpoint | undefined;
  readonly loaded: Map<string, OpaqueProviderState>;
}): Promise<void> {
  const value = input.stored?.checkpoint as
    | { readonly strategy?: unknown; readonly opaque?: { readonly itemHash?: unknown } }
    | null
    | undefined;
  if (value?.strategy === 'provider-native' && typeof value.opaque?.itemHash === 'string')
    input.loaded.delete(value.opaque.itemHash);
  await input.store?.discard({ sessionId: input.sessionId, lane: MAIN_LANE });
}
