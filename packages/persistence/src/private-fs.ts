import { constants } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/*
 * Everything under FORGE_HOME is private to its user: directories 0700, files 0600. Modes are set
 * explicitly after creation, because `mkdir`/`open` modes are filtered through the umask.
 */

export const PRIVATE_DIRECTORY_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** True when `error` is a Node system error with this `code` (`ENOENT`, `EEXIST`, ...). */
export function isErrorCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

/**
 * Creates `directory` and any missing parents, each with mode 0700. Directories that already
 * exist are left as they are (FORGE_HOME may point at a directory the user manages).
 */
export async function ensurePrivateDirectory(directory: string): Promise<void> {
  try {
    const existing = await stat(directory);
    if (existing.isDirectory()) return;
  } catch (error) {
    if (!isErrorCode(error, 'ENOENT')) throw error;
  }
  const parent = dirname(directory);
  if (parent !== directory) await ensurePrivateDirectory(parent);
  try {
    await mkdir(directory, { mode: PRIVATE_DIRECTORY_MODE });
  } catch (error) {
    if (isErrorCode(error, 'EEXIST')) return;
    throw error;
  }
  await chmod(directory, PRIVATE_DIRECTORY_MODE);
}

/** Creates a new directory with mode 0700; fails with `EEXIST` when it exists. */
export async function createPrivateDirectory(directory: string): Promise<void> {
  await mkdir(directory, { mode: PRIVATE_DIRECTORY_MODE });
  await chmod(directory, PRIVATE_DIRECTORY_MODE);
}

/**
 * Opens a file for writing with mode 0600. `exclusive` fails with `EEXIST` if it exists; otherwise
 * an existing file is opened for appending.
 */
export async function openPrivateFile(file: string, options: { readonly exclusive: boolean }): Promise<FileHandle> {
  const flags = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (options.exclusive ? constants.O_EXCL : 0);
  const handle = await open(file, flags, PRIVATE_FILE_MODE);
  try {
    await handle.chmod(PRIVATE_FILE_MODE);
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}

/** Writes all of `data` at the end of the file behind `handle`. */
export async function writeAll(handle: FileHandle, data: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    const { bytesWritten } = await handle.write(data, offset, data.length - offset);
    offset += bytesWritten;
  }
}

const WRITE_FAILURE_HINTS: Readonly<Record<string, string>> = {
  ENOSPC: 'the file system is full; free some space and retry',
  EDQUOT: 'the disk quota is used up; free some space and retry',
  EROFS: 'the file system is read-only',
  EIO: 'the device reported an input/output error',
};

/** `: <what it means and what to do>` for a failed write's error code, or '' when there is nothing to add. */
export function writeFailureHint(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const hint = code === undefined ? undefined : WRITE_FAILURE_HINTS[code];
  return hint === undefined ? '' : `: ${hint}`;
}

/**
 * Writes all of `data` through `handle` and flushes it (`fdatasync`). A failure is rethrown naming
 * `file` (a write through a handle names no path: "ENOSPC: no space left on device, write"), with
 * its `code` kept, so whoever reads it knows which file and what to do.
 */
export async function writeDurably(handle: FileHandle, data: Uint8Array, file: string): Promise<void> {
  try {
    await writeAll(handle, data);
    await handle.datasync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    const reason = error instanceof Error ? error.message : String(error);
    throw Object.assign(new Error(`Could not write ${file} (${reason})${writeFailureHint(error)}.`, { cause: error }), { code, path: file });
  }
}

/** Makes a directory's entries (new, renamed or removed files) durable. */
export async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Replaces `file` atomically with `data`: a 0600 temporary file in the same directory
 * (`.<name>.<12 hex>.tmp`, or `.<temporaryPrefix>.<12 hex>.tmp`), flushed, renamed over the old
 * file, and the directory synced. Readers see the old content or the new, never a torn mix; a
 * crash leaves at most a temporary file behind. The directory must exist.
 */
export async function writeFileAtomically(file: string, data: string | Uint8Array, options: { readonly temporaryPrefix?: string } = {}): Promise<void> {
  const directory = dirname(file);
  const temporary = join(directory, `.${options.temporaryPrefix ?? basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temporary, 'wx', PRIVATE_FILE_MODE);
  let renamed = false;
  try {
    try {
      await handle.chmod(PRIVATE_FILE_MODE);
      await writeDurably(handle, typeof data === 'string' ? Buffer.from(data, 'utf8') : data, file);
    } finally {
      await handle.close();
    }
    await chmod(temporary, PRIVATE_FILE_MODE);
    await rename(temporary, file);
    renamed = true;
    await syncDirectory(directory);
  } finally {
    if (!renamed) await unlink(temporary).catch(() => undefined);
  }
}
