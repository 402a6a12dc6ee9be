import { constants } from 'node:fs';
import { open, readlink, realpath, stat, type FileHandle } from 'node:fs/promises';
import { assertOpenedInside } from './workspace.js';

/** Files larger than this are never loaded whole by read_file or edit_file. */
export const MAX_FILE_BYTES = 16 * 1024 * 1024;

export type LoadedFile =
  | { readonly kind: 'ok'; readonly bytes: Buffer; readonly mode: number }
  | { readonly kind: 'not-a-file' }
  | { readonly kind: 'too-large'; readonly size: number };

/**
 * Loads a regular file whole, refusing directories, devices and anything over `MAX_FILE_BYTES`.
 * `absolute` is the path `resolveWorkspacePath` approved; the file actually opened is checked again
 * to lie inside `root`, so a directory swapped for a link to the outside after that check is refused
 * (`requested` names the path in the refusal).
 */
export async function loadFile(absolute: string, root: string, requested: string): Promise<LoadedFile> {
  let handle: FileHandle;
  try {
    // O_NOFOLLOW: the approved path has no link left in its last part; O_NONBLOCK: a FIFO cannot stall the open.
    handle = await open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') assertOpenedInside(await realpath(root), requested, null);
    throw error;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { kind: 'not-a-file' };
    if (info.size > MAX_FILE_BYTES) return { kind: 'too-large', size: info.size };
    assertOpenedInside(await realpath(root), requested, await openedPath(handle, absolute));
    return { kind: 'ok', bytes: await handle.readFile(), mode: info.mode };
  } finally {
    await handle.close();
  }
}

/**
 * Where the open file really is: Linux names it in /proc. Elsewhere, the path as it resolves now,
 * and only if it still leads to the file that was opened (otherwise null: it moved meanwhile).
 */
async function openedPath(handle: FileHandle, absolute: string): Promise<string | null> {
  try {
    return await readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    const now = await realpath(absolute).catch(() => null);
    if (now === null) return null;
    const [opened, current] = await Promise.all([handle.stat(), stat(now)]);
    return opened.dev === current.dev && opened.ino === current.ino ? now : null;
  }
}

/** A file holding a NUL byte is treated as binary, the same heuristic git and grep use. */
export function isBinary(bytes: Uint8Array): boolean {
  return bytes.includes(0);
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
