import { constants, type Stats } from 'node:fs';
import { lstat, open, stat, type FileHandle } from 'node:fs/promises';

/** What a path names, in words a message can use ("is a FIFO, not a regular file"). */
export type FileKind =
  | 'regular file'
  | 'directory'
  | 'FIFO'
  | 'character device'
  | 'block device'
  | 'socket'
  | 'symbolic link'
  | 'special file';

/** Why a file was not read. */
export type FileRefusal =
  | { readonly kind: 'missing' }
  | { readonly kind: 'not-regular'; readonly fileKind: FileKind }
  | { readonly kind: 'too-large'; readonly size: number; readonly limit: number };

export interface RegularFileOptions {
  /**
   * Refuse a file larger than this, judged by its size before anything is read (so a huge sparse
   * file costs nothing) and again while reading (a file that grows, or a `/proc` file reporting 0).
   */
  readonly maxBytes?: number;
  /** Follow a symbolic link in the last part of the path (default true); false refuses the link itself. */
  readonly followSymlinks?: boolean;
}

export type OpenedRegularFile = { readonly kind: 'opened'; readonly handle: FileHandle; readonly stats: Stats };

export type ReadRegularFile = { readonly kind: 'read'; readonly bytes: Buffer; readonly stats: Stats } | FileRefusal;

function fileKindOf(stats: Stats): FileKind {
  if (stats.isFile()) return 'regular file';
  if (stats.isDirectory()) return 'directory';
  if (stats.isFIFO()) return 'FIFO';
  if (stats.isCharacterDevice()) return 'character device';
  if (stats.isBlockDevice()) return 'block device';
  if (stats.isSocket()) return 'socket';
  if (stats.isSymbolicLink()) return 'symbolic link';
  return 'special file';
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function isLinkLoop(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ELOOP';
}

function refusalOf(stats: Stats, maxBytes: number | undefined): FileRefusal | undefined {
  if (!stats.isFile()) return { kind: 'not-regular', fileKind: fileKindOf(stats) };
  if (maxBytes !== undefined && stats.size > maxBytes) return { kind: 'too-large', size: stats.size, limit: maxBytes };
  return undefined;
}

/**
 * Opens `file` for reading only if it is a regular file within `maxBytes`. The path is looked at
 * first, so a FIFO, a device or an oversized file is refused without being opened; the open uses
 * `O_NONBLOCK` (a FIFO swapped in meanwhile cannot stall it) and the opened file is checked again.
 * Other errors (permissions) are thrown. The caller closes the handle.
 */
export async function openRegularFile(
  file: string,
  options: RegularFileOptions = {},
): Promise<OpenedRegularFile | FileRefusal> {
  const follow = options.followSymlinks ?? true;
  let before: Stats;
  try {
    before = await (follow ? stat(file) : lstat(file));
  } catch (error) {
    if (isMissing(error)) return { kind: 'missing' };
    if (isLinkLoop(error)) return { kind: 'not-regular', fileKind: 'symbolic link' };
    throw error;
  }
  const early = refusalOf(before, options.maxBytes);
  if (early !== undefined) return early;

  let handle: FileHandle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK | (follow ? 0 : constants.O_NOFOLLOW));
  } catch (error) {
    if (isMissing(error)) return { kind: 'missing' };
    if (isLinkLoop(error)) return { kind: 'not-regular', fileKind: 'symbolic link' };
    throw error;
  }
  try {
    const stats = await handle.stat();
    const refusal = refusalOf(stats, options.maxBytes);
    if (refusal === undefined) return { kind: 'opened', handle, stats };
    await handle.close();
    return refusal;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Reads at most `limit + 1` bytes from the start of `handle`, whatever size the file claims (a
 * `/proc` file says 0, a growing file says less than it holds).
 */
export async function readAtMost(handle: FileHandle, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  while (total <= limit) {
    const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, limit + 1 - total));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, total);
    if (bytesRead === 0) break;
    chunks.push(chunk.subarray(0, bytesRead));
    total += bytesRead;
  }
  return Buffer.concat(chunks, total);
}

/** Reads a regular file (see `openRegularFile`) whole, refusing one over `maxBytes`. */
export async function readRegularFile(file: string, options: RegularFileOptions = {}): Promise<ReadRegularFile> {
  const opened = await openRegularFile(file, options);
  if (opened.kind !== 'opened') return opened;
  const { handle, stats } = opened;
  try {
    if (options.maxBytes === undefined) return { kind: 'read', bytes: await handle.readFile(), stats };
    const bytes = await readAtMost(handle, options.maxBytes);
    if (bytes.length > options.maxBytes)
      return { kind: 'too-large', size: Math.max(stats.size, bytes.length), limit: options.maxBytes };
    return { kind: 'read', bytes, stats };
  } finally {
    await handle.close();
  }
}

/** `1.5 KiB`, `40.0 MiB`: sizes as messages show them. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  return `${(bytes / 1024 / 1024 / 1024).toFixed(1)} GiB`;
}

/** One clause naming the file and why it was not read: `/w/.gitignore is a FIFO, not a regular file`. */
export function describeRefusal(file: string, refusal: FileRefusal): string {
  switch (refusal.kind) {
    case 'missing':
      return `${file} does not exist`;
    case 'not-regular':
      return `${file} is a ${refusal.fileKind}, not a regular file`;
    case 'too-large':
      return `${file} is ${formatBytes(refusal.size)}, more than the ${formatBytes(refusal.limit)} Forge reads of it`;
  }
}
