import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '@forge/bounded-read';
import { opaqueProviderStateSchema } from '@forge/core';
import { z } from 'zod';
import { ensurePrivateDirectory, isErrorCode, PRIVATE_FILE_MODE } from '../private-fs.js';
import { readStoredFile } from '../stored-file.js';

export const OPAQUE_STATE_SCHEMA_VERSION = 1 as const;

/** A conversation: a session and one lane in it (`main`, or a subagent's lane). Both are safe ids. */
export interface ConversationIdentity {
  readonly sessionId: string;
  readonly lane: string;
}

export const opaqueStateFileSchema = z
  .object({
    schemaVersion: z.literal(OPAQUE_STATE_SCHEMA_VERSION),
    sessionId: z.string(),
    lane: z.string(),
    savedAt: z.string(),
    state: opaqueProviderStateSchema,
  })
  .strict();

export type OpaqueStateFile = z.infer<typeof opaqueStateFileSchema>;

/** `<directory>/<session id>/<lane>.json`; both parts are safe ids, checked by the caller. */
export function stateFilePath(directory: string, identity: ConversationIdentity): string {
  return join(directory, identity.sessionId, `${identity.lane}.json`);
}

/**
 * The temporaries a write of a lane's file uses (`writeFileAtomic`'s `.<lane>.json.forge-<pid>-<12 hex>.tmp`),
 * and `.<lane>.<12 hex>.tmp`, which earlier versions used.
 */
function isLaneTemporary(name: string, lane: string): boolean {
  if (!name.startsWith(`.${lane}.`)) return false;
  const rest = name.slice(lane.length + 2);
  return /^[0-9a-f]{12}\.tmp$/.test(rest) || /^json\.forge-\d+-[0-9a-f]{12}\.tmp$/.test(rest);
}

/**
 * Removes temporaries of this conversation that a process killed mid-write left behind: they hold
 * the same plain-text items as the state. Only the conversation's one writer (the holder of the
 * session lock) writes its files, so none of them belongs to a write still going on.
 */
async function removeLeftoverTemporaries(directory: string, identity: ConversationIdentity): Promise<void> {
  const sessionDirectory = join(directory, identity.sessionId);
  let names: string[];
  try {
    names = await readdir(sessionDirectory);
  } catch (error) {
    if (isErrorCode(error, 'ENOENT')) return;
    throw error;
  }
  await Promise.all(
    names
      .filter((name) => isLaneTemporary(name, identity.lane))
      .map((name) => rm(join(sessionDirectory, name), { force: true })),
  );
}

/**
 * Writes the file atomically: a 0600 temporary file in the same 0700 directory, flushed, then
 * renamed over the old one, and the directory synced. Readers see the old state or the new one.
 */
export async function writeStateFile(
  directory: string,
  identity: ConversationIdentity,
  file: OpaqueStateFile,
): Promise<void> {
  const target = stateFilePath(directory, identity);
  const sessionDirectory = join(directory, identity.sessionId);
  await ensurePrivateDirectory(sessionDirectory);
  await removeLeftoverTemporaries(directory, identity);
  await writeFileAtomic(target, JSON.stringify(file), { mode: PRIVATE_FILE_MODE, syncDirectory: true });
}

/** What a state file holds besides the state's items (ids, hashes, counts), with room to spare. */
export const STATE_FILE_ENVELOPE_BYTES = 64 * 1024;

/**
 * The stored file, or undefined when there is none or it cannot be trusted (it is then removed).
 * A file over `maxBytes` (or not a regular file) is not read and throws `CorruptFileError`.
 */
export async function readStateFile(
  directory: string,
  identity: ConversationIdentity,
  maxBytes: number,
): Promise<OpaqueStateFile | undefined> {
  let text: string;
  try {
    text = (await readStoredFile(stateFilePath(directory, identity), { maxBytes })).toString('utf8');
  } catch (error) {
    if (isErrorCode(error, 'ENOENT')) return undefined;
    throw error;
  }
  const parsed = opaqueStateFileSchema.safeParse(parseJson(text));
  if (!parsed.success || parsed.data.sessionId !== identity.sessionId || parsed.data.lane !== identity.lane) {
    await deleteStateFile(directory, identity);
    return undefined;
  }
  return parsed.data;
}

export async function deleteStateFile(directory: string, identity: ConversationIdentity): Promise<void> {
  await rm(stateFilePath(directory, identity), { force: true });
  await removeLeftoverTemporaries(directory, identity);
}

export async function deleteAllStateFiles(directory: string): Promise<void> {
  await rm(directory, { recursive: true, force: true });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
