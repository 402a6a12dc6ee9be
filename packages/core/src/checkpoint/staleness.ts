import type { CheckpointTranscriptEntry } from './host-metadata.js';
import type { ContextCheckpoint, FactRecord } from './schema.js';
import { TranscriptObserver } from './transcript-observer.js';

/** Current content hash of each artifact the host knows, by uri; `null` when the host has none. */
export type ArtifactHashes = ReadonlyMap<string, string | null>;

export type FactStatus =
  | { readonly status: 'VALID' }
  | { readonly status: 'SUSPECT'; readonly reason: string; readonly uri: string };

/**
 * Whether a fact can still be trusted. VALID only when the hash of every file it depends on was
 * known when it was recorded, is known now, and is the same; otherwise SUSPECT with the first
 * dependency (by uri) that fails and why. A fact that depends on nothing is VALID.
 */
export function factStatus(fact: Pick<FactRecord, 'dependsOn'>, currentHashes: ArtifactHashes): FactStatus {
  for (const dependency of fact.dependsOn) {
    const current = currentHashes.get(dependency.uri);
    if (dependency.hash === null) {
      return { status: 'SUSPECT', uri: dependency.uri, reason: `hash of ${dependency.uri} was unknown when recorded` };
    }
    if (current === undefined || current === null) {
      return { status: 'SUSPECT', uri: dependency.uri, reason: `current hash of ${dependency.uri} unknown` };
    }
    if (current !== dependency.hash) {
      return { status: 'SUSPECT', uri: dependency.uri, reason: `${dependency.uri} changed since recorded` };
    }
  }
  return { status: 'VALID' };
}

/**
 * The hashes to judge facts by: the checkpoint's artifacts, overridden by `newer` observations
 * (for example artifacts seen in messages after the checkpoint was built).
 */
export function currentArtifactHashes(
  checkpoint: Pick<ContextCheckpoint, 'state'>,
  newer?: ArtifactHashes,
): Map<string, string | null> {
  const hashes = new Map<string, string | null>();
  for (const artifact of checkpoint.state.artifacts) hashes.set(artifact.uri, artifact.hash);
  if (newer !== undefined) for (const [uri, hash] of newer) hashes.set(uri, hash);
  return hashes;
}

/** Artifact hashes observed in `entries[start, end)` only, latest observation winning. */
export function observeArtifactHashes(
  entries: readonly CheckpointTranscriptEntry[],
  start = 0,
  end: number = entries.length,
): Map<string, string | null> {
  const observer = new TranscriptObserver(Math.max(0, start));
  for (let index = Math.max(0, start); index < Math.min(end, entries.length); index += 1) {
    observer.observe(entries[index] as CheckpointTranscriptEntry);
  }
  return observer.hashes();
}
