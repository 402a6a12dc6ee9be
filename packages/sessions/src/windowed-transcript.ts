import { withRunIds, type CheckpointTranscriptEntry } from '@forge/core/checkpoint';
import type { ContextMode } from '@forge/core';
import type { LoadedSession, SessionWriter } from '@forge/persistence';

/** The loaded messages of a session with the run that added each (`entries[0]` is message `firstMessage`). */
export function loadedEntries(loaded: LoadedSession): CheckpointTranscriptEntry[] {
  const runs = loaded.runs.map((run) => ({
    runId: run.runId,
    firstMessageIndex: run.firstMessageIndex - loaded.firstMessage,
  }));
  return withRunIds(loaded.messages, runs);
}

/**
 * The transcript a view of a windowed session is chosen from: every entry at its position, and
 * nothing (array holes) before the window, which a view in mode `compact` never reads — it reads
 * the checkpoint's kept tail and what follows. A provider-native checkpoint replays or rebuilds
 * from the whole transcript, so for one the whole log is read (`whole`).
 */
export function viewTranscript(
  writer: Pick<SessionWriter, 'windowed' | 'loaded' | 'checkpoint'>,
  mode: ContextMode,
  whole: () => CheckpointTranscriptEntry[],
): readonly CheckpointTranscriptEntry[] {
  const stored = writer.checkpoint?.checkpoint;
  const providerNative =
    typeof stored === 'object' &&
    stored !== null &&
    !Array.isArray(stored) &&
    (stored as { readonly strategy?: unknown }).strategy === 'provider-native';
  if (!writer.windowed || providerNative || mode !== 'compact') return whole();
  const loaded = writer.loaded;
  const entries: CheckpointTranscriptEntry[] = [];
  entries.length = loaded.firstMessage;
  for (const entry of loadedEntries(loaded)) entries.push(entry);
  return entries;
}
