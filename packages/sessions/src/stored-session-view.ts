import type { Message, OpaqueProviderState } from '@forge/core';
import { withRunIds, type CheckpointTranscriptEntry } from '@forge/core/checkpoint';
import type { SessionTranscript, StoredSessionWindow } from '@forge/persistence';
import {
  currentArtifactHashesFor,
  resolveStoredCheckpoint,
  resolveWindowedCheckpoint,
  type ArtifactHashSource,
  type ResolvedCheckpoint,
} from './checkpoint-install.js';
import { selectSessionView, type SessionView, type SessionViewOptions } from './session-view.js';
import { workingSetFor } from './working-set-input.js';
import { viewTranscript } from './windowed-transcript.js';

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

/** What `viewOfStoredWindow` gives: the view, and the transcript it was chosen from (nothing before the window). */
export interface StoredWindowView {
  /** Every message at its position, with array holes before the window: a view in mode `compact` reads only its tail. */
  readonly messages: readonly Message[];
  readonly resolved: ResolvedCheckpoint;
  readonly view: SessionView;
}

/**
 * `viewOfStoredSession` in mode `compact` for a session read as its checkpoint's window
 * (`loadSessionWindow`): the same view, from the checkpoint and the records after it. Undefined
 * when the window cannot give it — the checkpoint does not resolve (the view would then send every
 * message) or is provider-native (it replays or rebuilds from the whole transcript): read the
 * whole session then.
 */
export async function viewOfStoredWindow(
  window: Pick<StoredSessionWindow, 'checkpoint' | 'loaded'>,
  options: Omit<StoredSessionViewOptions, 'mode'>,
): Promise<StoredWindowView | undefined> {
  const { artifactHashes, nativeStates, ...viewOptions } = options;
  const { checkpoint, loaded } = window;
  const resolved = resolveWindowedCheckpoint(checkpoint, loaded, options.caps);
  if (!resolved.ok || resolved.active.strategy === 'provider-native') return undefined;
  const currentHashes = await currentArtifactHashesFor(resolved, artifactHashes);
  const workingSet = await workingSetFor(resolved, artifactHashes, options.redact);
  const transcript = viewTranscript({ windowed: true, loaded, checkpoint }, 'compact', () => []);
  const view = selectSessionView({
    ...viewOptions,
    mode: 'compact',
    transcript,
    stored: checkpoint,
    resolved,
    nativeStates: nativeStates ?? new Map(),
    ...(currentHashes === undefined ? {} : { currentHashes }),
    ...(workingSet === undefined ? {} : { workingSet }),
  });
  const messages: Message[] = [];
  messages.length = loaded.firstMessage;
  for (const message of loaded.messages) messages.push(message);
  return { messages, resolved, view };
}
