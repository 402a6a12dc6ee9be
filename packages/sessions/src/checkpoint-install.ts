import { hashMessages, InvalidInputError, type JsonValue, type Message } from '@forge/core';
import {
  CHECKPOINT_CAPS,
  checkpointHash,
  observeArtifactHashes,
  renderCheckpointView,
  sourceMatchesTranscript,
  validateCheckpoint,
  type ArtifactHashes,
  type CheckpointCaps,
  type CheckpointTranscriptEntry,
  type ContextCheckpoint,
  type WorkingSetReader,
  type WorkingSetRenderInput,
  type WorkingSetShownFile,
} from '@forge/core/checkpoint';
import { checkpointIdOf, type BuiltCheckpoint } from '@forge/core/compaction';
import { z } from 'zod';
import type { CheckpointSource, StoredCheckpoint, SessionWriter } from '@forge/persistence';

/** The strategy `forge import codex --session` stores: a ready view of the imported rollout. */
export const CODEX_IMPORT_STRATEGY = 'codex-import';

const codexImportSchema = z.object({ strategy: z.literal(CODEX_IMPORT_STRATEGY), view: z.string() }).passthrough();

/** The checkpoint a session's view is built on, with where it came from. */
export type ActiveCheckpoint = {
  readonly id: string;
  readonly hash: string;
  readonly source: CheckpointSource;
  readonly recordedAt: string;
} & (
  | { readonly kind: 'forge'; readonly strategy: ContextCheckpoint['strategy']; readonly checkpoint: ContextCheckpoint }
  | { readonly kind: 'codex-import'; readonly strategy: typeof CODEX_IMPORT_STRATEGY; readonly view: string }
);

export type ResolvedCheckpoint =
  | { readonly ok: true; readonly active: ActiveCheckpoint }
  | { readonly ok: false; readonly problem: string };

/**
 * Reads the stored current checkpoint: a Forge checkpoint that passes `validateCheckpoint` and
 * still stands for the same messages (range and hashes), or a Codex import whose range still
 * matches. Anything else is reported as a problem and not used: the view falls back to the
 * recent tail of the transcript, which is never changed by compaction.
 */
export function resolveStoredCheckpoint(
  stored: StoredCheckpoint,
  transcript: readonly CheckpointTranscriptEntry[],
  caps: CheckpointCaps = CHECKPOINT_CAPS,
): ResolvedCheckpoint {
  return resolveAgainst(stored, {
    messageCount: transcript.length,
    matches: (source) => sourceMatchesTranscript(source, transcript),
    caps,
  });
}

/**
 * `resolveStoredCheckpoint` for a reader that did not load the messages the checkpoint stands for
 * (`forge checkpoint show` reads the checkpoint at the offset the session's index gives): the
 * range is checked against the transcript's length, and the messages' checksums, checked when
 * the index was made from the log, stand for the hashes.
 */
export function resolveIndexedCheckpoint(
  stored: StoredCheckpoint,
  messageCount: number,
  caps: CheckpointCaps = CHECKPOINT_CAPS,
): ResolvedCheckpoint {
  return resolveAgainst(stored, {
    messageCount,
    matches: (source) => source.messageCount <= messageCount && source.tailStart <= source.messageCount,
    caps,
  });
}

/**
 * `resolveStoredCheckpoint` for a session opened as a window (see `SessionWriter.windowed`): only
 * the messages from `firstMessage` on are loaded. The kept tail, which the window holds, is hashed
 * as usual; the summarized messages before it are vouched for by their checksums, checked when
 * the session's index was made from the log (as `resolveIndexedCheckpoint`).
 */
export function resolveWindowedCheckpoint(
  stored: StoredCheckpoint,
  window: { readonly firstMessage: number; readonly messages: readonly Message[] },
  caps: CheckpointCaps = CHECKPOINT_CAPS,
): ResolvedCheckpoint {
  const { firstMessage, messages } = window;
  const messageCount = firstMessage + messages.length;
  return resolveAgainst(stored, {
    messageCount,
    matches: (source) =>
      source.messageCount <= messageCount &&
      source.tailStart <= source.messageCount &&
      source.tailStart >= firstMessage &&
      hashMessages(messages, source.tailStart - firstMessage, source.messageCount - firstMessage) === source.tailHash,
    caps,
  });
}

function resolveAgainst(
  stored: StoredCheckpoint,
  transcript: {
    readonly messageCount: number;
    readonly matches: (source: CheckpointSource) => boolean;
    readonly caps: CheckpointCaps;
  },
): ResolvedCheckpoint {
  const hash = checkpointHash(stored.checkpoint);
  const facts = { id: checkpointIdOf(hash), hash, source: stored.source, recordedAt: stored.recordedAt };
  const imported = codexImportSchema.safeParse(stored.checkpoint);
  if (imported.success) {
    if (!transcript.matches(stored.source))
      return {
        ok: false,
        problem: `the imported checkpoint ${facts.id} no longer matches the transcript's messages; it is not used`,
      };
    return {
      ok: true,
      active: { ...facts, kind: 'codex-import', strategy: CODEX_IMPORT_STRATEGY, view: imported.data.view },
    };
  }
  const validation = validateCheckpoint(stored.checkpoint, transcript.messageCount, transcript.caps);
  if (!validation.ok)
    return {
      ok: false,
      problem: `checkpoint ${facts.id} is not valid (${validation.errors.slice(0, 2).join('; ')}); it is not used`,
    };
  if (!transcript.matches(validation.checkpoint.source)) {
    return {
      ok: false,
      problem: `checkpoint ${facts.id} no longer matches the transcript's messages (range or hashes differ); it is not used`,
    };
  }
  return {
    ok: true,
    active: { ...facts, kind: 'forge', strategy: validation.checkpoint.strategy, checkpoint: validation.checkpoint },
  };
}

/**
 * The text the model is sent for an active checkpoint: the byte-stable view, with facts judged
 * against artifacts observed after the checkpoint was built (a file edited since makes the facts
 * that depend on it SUSPECT), overridden by `currentHashes` from the host, and the files in hand
 * shown with the text in `workingSet` (see `readWorkingSet`); a Codex import's stored view as it is.
 */
export function renderActiveCheckpoint(
  active: ActiveCheckpoint,
  transcript: readonly CheckpointTranscriptEntry[],
  caps: CheckpointCaps = CHECKPOINT_CAPS,
  currentHashes?: ArtifactHashes,
  workingSet?: WorkingSetRenderInput,
): string {
  if (active.kind === 'codex-import') return active.view;
  const observed = observeArtifactHashes(transcript, active.checkpoint.source.messageCount);
  if (currentHashes !== undefined) for (const [uri, hash] of currentHashes) observed.set(uri, hash);
  return renderCheckpointView(active.checkpoint, caps, observed, workingSet);
}

/** The artifacts the checkpoint's facts depend on: what a host re-hashes so stale facts show SUSPECT. */
export function factDependencies(checkpoint: ContextCheckpoint): string[] {
  return [
    ...new Set(checkpoint.memory.facts.flatMap((fact) => fact.dependsOn.map((dependency) => dependency.uri))),
  ].sort();
}

/**
 * Hashes of artifacts as they are now, from the host: for example workspace files re-hashed from
 * disk. They override what the transcript last observed, so a file changed outside the agent makes
 * the facts that depend on it SUSPECT. `null` means the host could not hash it (deleted, unreadable).
 */
export interface ArtifactHashSource {
  (uris: readonly string[]): Promise<ArtifactHashes>;
  /** Reads a checkpoint's files in hand from disk for its working set; without it the files are listed without text. */
  readonly readFiles?: WorkingSetReader;
  /** Told what each view sent to the model showed of the working set (the read ledger accepts those files). */
  readonly workingSetSent?: (shown: readonly WorkingSetShownFile[]) => void;
}

/**
 * Installs a checkpoint as one transaction: validate it against the transcript → write its record
 * durably (`SessionWriter.recordCheckpoint` returns once it is on disk) → only then is it the
 * session's current checkpoint. A checkpoint that fails validation is never written; a failed
 * write leaves the previous checkpoint current. Throws in both cases.
 */
export async function installCheckpoint(
  writer: Pick<SessionWriter, 'recordCheckpoint' | 'messageCount'>,
  built: Pick<BuiltCheckpoint, 'checkpoint'>,
  caps: CheckpointCaps = CHECKPOINT_CAPS,
): Promise<void> {
  const validation = validateCheckpoint(built.checkpoint, writer.messageCount, caps);
  if (!validation.ok) {
    throw new InvalidInputError({
      message: `The checkpoint was not installed because it is not valid: ${validation.errors.slice(0, 3).join('; ')}.`,
    });
  }
  await writer.recordCheckpoint({
    source: built.checkpoint.source,
    checkpoint: built.checkpoint as unknown as JsonValue,
  });
}

/**
 * Asks `source` for the current hashes of what the checkpoint's facts depend on. A source that
 * fails leaves every one of them unknown (so those facts show SUSPECT), never silently VALID.
 */
export async function currentArtifactHashesFor(
  resolved: ResolvedCheckpoint | undefined,
  source: ArtifactHashSource | undefined,
): Promise<ArtifactHashes | undefined> {
  if (source === undefined || resolved === undefined || !resolved.ok || resolved.active.kind !== 'forge')
    return undefined;
  return hashesOf(factDependencies(resolved.active.checkpoint), source);
}

/** `source` asked for `uris`; when it fails, every uri maps to `null` (unknown). */
export async function hashesOf(
  uris: readonly string[],
  source: ArtifactHashSource,
): Promise<ArtifactHashes | undefined> {
  if (uris.length === 0) return undefined;
  try {
    return await source(uris);
  } catch {
    return new Map(uris.map((uri) => [uri, null]));
  }
}
