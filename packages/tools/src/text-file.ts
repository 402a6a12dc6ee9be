import { readlink, realpath, stat, type FileHandle } from 'node:fs/promises';
import { formatBytes, openRegularFile, readAtMost, type FileKind } from '@forge/bounded-read';
import { assertOpenedInside } from './workspace.js';

export { formatBytes } from '@forge/bounded-read';

/** Files larger than this are never loaded whole by read_file or edit_file. */
export const MAX_FILE_BYTES = 16 * 1024 * 1024;

export type LoadedFile =
  | { readonly kind: 'ok'; readonly bytes: Buffer; readonly mode: number }
  | { readonly kind: 'missing' }
  | { readonly kind: 'not-a-file'; readonly fileKind: FileKind }
  | { readonly kind: 'too-large'; readonly size: number; readonly limit: number }
  /** More than one name links to the file: another may lie outside the workspace. */
  | { readonly kind: 'hard-linked'; readonly links: number };

/**
 * Loads a regular file whole, refusing directories, FIFOs, devices, files with more than one hard
 * link and anything over `maxBytes` (default `MAX_FILE_BYTES`), none of which is opened for reading.
 * `absolute` is the path `resolveWorkspacePath` approved; the file actually opened is checked again
 * to lie inside `root`, so a directory or the file swapped for a link to the outside after that
 * check is refused with a `WorkspacePathError` (`requested` names the path in it).
 */
export async function loadFile(
  absolute: string,
  root: string,
  requested: string,
  options: { readonly maxBytes?: number } = {},
): Promise<LoadedFile> {
  const maxBytes = options.maxBytes ?? MAX_FILE_BYTES;
  // Not following links: the approved path has none left in its last part, so a link there is a swap.
  const opened = await openRegularFile(absolute, { maxBytes, followSymlinks: false });
  if (opened.kind === 'not-regular' && opened.fileKind === 'symbolic link')
    assertOpenedInside(await realpath(root), requested, null);
  if (opened.kind === 'missing' || opened.kind === 'too-large') return opened;
  if (opened.kind === 'not-regular') return { kind: 'not-a-file', fileKind: opened.fileKind };
  const { handle, stats } = opened;
  try {
    assertOpenedInside(await realpath(root), requested, await openedPath(handle, absolute));
    if (stats.nlink > 1) return { kind: 'hard-linked', links: stats.nlink };
    const bytes = await readAtMost(handle, maxBytes);
    if (bytes.length > maxBytes)
      return { kind: 'too-large', size: Math.max(stats.size, bytes.length), limit: maxBytes };
    return { kind: 'ok', bytes, mode: stats.mode };
  } finally {
    await handle.close();
  }
}

/** The error text `tool` returns for a file `loadFile` did not load. */
export function unloadedFileText(loaded: Exclude<LoadedFile, { kind: 'ok' }>, requested: string, tool: string): string {
  switch (loaded.kind) {
    case 'missing':
      return `"${requested}" does not exist in the workspace; use list_files or search to find the right path.`;
    case 'not-a-file':
      return `"${requested}" is a ${loaded.fileKind}, not a regular file; ${tool} works on regular files only (use list_files to see what a directory contains).`;
    case 'too-large':
      return `"${requested}" is ${formatBytes(loaded.size)}, more than the ${formatBytes(loaded.limit)} ${tool} handles; use search to find the part you need.`;
    case 'hard-linked':
      return (
        `"${requested}" has ${loaded.links} hard links, and another of them may be a file outside the workspace, so ${tool} does not open it. ` +
        'Ask the user for its content if you need it.'
      );
  }
}

/**
 * Where the open file really is: Linux names it in /proc. Elsewhere, the path as it resolves now,
 * and only if it still leads to the file that was opened (otherwise null: it moved meanwhile).
 */
export async function openedPath(handle: FileHandle, absolute: string): Promise<string | null> {
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
