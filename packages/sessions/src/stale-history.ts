import type { Message } from '@forge/core';
import type { CheckpointTranscriptEntry } from '@forge/core/checkpoint';
import { markStaleReads, readArtifacts } from '@forge/core/compaction';
import type { ArtifactHashSource } from './checkpoint-install.js';
import type { SessionView } from './session-view.js';

/**
 * Mode `compact`: the turn's history with reads of files changed outside the conversation shown
 * as out of date (core's `markStaleReads`), the files re-hashed by `source`. Messages replayed by
 * provider-native state are left as they are; without a source, or when it fails, nothing changes.
 */
export async function historyWithStaleReads(input: {
  readonly history: readonly Message[];
  readonly view: Pick<SessionView, 'nativeState' | 'tailStart'>;
  readonly entries: () => readonly CheckpointTranscriptEntry[];
  readonly source: ArtifactHashSource | undefined;
}): Promise<readonly Message[]> {
  const { history, view, source } = input;
  if (source === undefined) return history;
  const replayed = view.nativeState === undefined ? 0 : view.tailStart;
  const verbatim = history.slice(replayed);
  const uris = readArtifacts(verbatim);
  if (uris.length === 0) return history;
  let hashes;
  try {
    hashes = await source(uris);
  } catch {
    return history;
  }
  const marked = markStaleReads(input.entries(), verbatim, hashes);
  return marked.stale.length === 0 ? history : [...history.slice(0, replayed), ...marked.history];
}
