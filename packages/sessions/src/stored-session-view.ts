import type { OpaqueProviderState } from '@forge/core';
import { withRunIds, type CheckpointTranscriptEntry } from '@forge/core/checkpoint';
import type { SessionTranscript } from '@forge/persistence';
import {
  currentArtifactHashesFor,
  resolveStoredCheckpoint,
  type ArtifactHashSource,
  type ResolvedCheckpoint,
} from './checkpoint-install.js';
import { selectSessionView, type SessionView, type SessionViewOptions } from './session-view.js';
import { workingSetFor } from './working-set-input.js';

export interface StoredSessionViewOptions extends Omit<SessionViewOptions, 'currentHashes' | 'workingSet'> {
  readonly redact: (text: string) => string;
  /** Re-hashes the files the checkpoint's facts depend on, so facts about files changed since show SUSPECT, and reads its files in hand. */
  readonly artifactHashes?: ArtifactHashSource;
  /** Provider-native states the caller holds, by item hash (none by default). */
  readonly nativeStates?: ReadonlyMap<string, OpaqueProviderState>;
}

export interface StoredSessionView {
  /** The transcript with the run that added each message. */
  readonly entries: readonly CheckpointTranscriptEntry[];
  /** The stored checkpoint checked against the transcript; undefined when the session has none. */
  readonly resolved: ResolvedCheckpoint | undefined;
  readonly view: SessionView;
}

/**
 * The view the next turn of a session read from disk would send in `mode`, chosen exactly as
 * `SessionHandle.runTurn` chooses it, without opening the session for writing: what
 * `forge context` measures and `forge compact --dry-run` starts from.
 */
export async function viewOfStoredSession(
  transcript: SessionTranscript,
  options: StoredSessionViewOptions,
): Promise<StoredSessionView> {
  const { artifactHashes, nativeStates, ...viewOptions } = options;
  const entries = withRunIds(transcript.messages, transcript.runs);
  const resolved =
    transcript.checkpoint === undefined
      ? undefined
      : resolveStoredCheckpoint(transcript.checkpoint, entries, options.caps);
  const currentHashes = await currentArtifactHashesFor(resolved, artifactHashes);
  const workingSet =
    options.mode === 'compact' ? await workingSetFor(resolved, artifactHashes, options.redact) : undefined;
  const view = selectSessionView({
    ...viewOptions,
    transcript: entries,
    stored: transcript.checkpoint,
    ...(resolved === undefined ? {} : { resolved }),
    nativeStates: nativeStates ?? new Map(),
    ...(currentHashes === undefined ? {} : { currentHashes }),
    ...(workingSet === undefined ? {} : { workingSet }),
  });
  return { entries, resolved, view };
}
