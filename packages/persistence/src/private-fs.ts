import { constants } from 'node:fs';
import { chmod, mkdir, open, stat, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';

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
  const flags =
    constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (options.exclusive ? constants.O_EXCL : 0);
  const handle = await open(file, flags, PRIVATE_FILE_MODE);
  try {
    await handle.chmod(PRIVATE_FILE_MODE);
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}
