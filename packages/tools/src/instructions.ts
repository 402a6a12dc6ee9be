import { readlink, realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { describeRefusal, openRegularFile, readAtMost } from '@forge/bounded-read';
import { createInstructionSnapshot, InvalidInputError, type InstructionSnapshot } from '@forge/core';
import { openedPath } from './text-file.js';
import { isInside } from './workspace.js';
import { entryExists } from './entry-exists.js';

/** The file name looked for in each directory. */
export const INSTRUCTIONS_FILE_NAME = 'AGENTS.md';
/** Default for `maxFileBytes`: the most of one instruction file that is loaded. */
export const DEFAULT_INSTRUCTION_FILE_BYTES = 64 * 1024;

export interface LoadInstructionsOptions {
  readonly workspaceRoot: string;
  /** Forge's base system prompt; comes first in the snapshot. */
  readonly systemPrompt: string;
  /** Bytes kept of each file; longer files are cut with a marker (default 64 KiB). */
  readonly maxFileBytes?: number;
  /** Where the search for a repository root stops at the latest (default: the user's home directory). */
  readonly homeDirectory?: string;
  /** Told, in one sentence each, about instruction files that were found but not loaded. */
  readonly onWarning?: (message: string) => void;
}

/**
 * Loads the instructions of one run: the system prompt, then the `AGENTS.md` files that belong to
 * the workspace, outermost first, so the file closest to the workspace has the last word.
 *
 * Inside a repository (the nearest directory above the workspace holding `.git`, looked for up
 * to the home directory) those are the files from the repository root down to the workspace
 * root; outside one, only the workspace root's own file. The search never enters a directory
 * other users may write to (such as `/tmp`). A file is read with the confinement of `read_file`,
 * the repository (or workspace) being the boundary: a symbolic link leading out of it, a FIFO or
 * device, or a file with several hard links is not loaded, and `onWarning` says so. Origins are
 * paths relative to the workspace root (`AGENTS.md`, `../AGENTS.md`), as the tools name files, so
 * the instructions text is the same wherever the repository is checked out. Call it once per run
 * and keep the snapshot.
 */
export async function loadInstructions(options: LoadInstructionsOptions): Promise<InstructionSnapshot> {
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_INSTRUCTION_FILE_BYTES;
  let start: string;
  try {
    start = await realpath(path.resolve(options.workspaceRoot));
  } catch (error) {
    throw new InvalidInputError({
      message: `The workspace root ${options.workspaceRoot} cannot be opened; check that the directory exists.`,
      cause: error,
    });
  }
  const home = await realpath(options.homeDirectory ?? homedir()).catch(() => undefined);
  const repositoryRoot = await findRepositoryRoot(start, home);
  const boundary = repositoryRoot ?? start;
  const warn = options.onWarning ?? (() => {});

  const found: { origin: string; content: string }[] = [];
  for (const directory of directoriesBetween(boundary, start)) {
    const file = path.join(directory, INSTRUCTIONS_FILE_NAME);
    const origin = path.relative(start, file);
    const loaded = await readInstructionFile(file, origin, boundary, maxFileBytes);
    if (loaded.kind === 'refused') warn(`${loaded.reason}; it was not loaded as instructions.`);
    if (loaded.kind === 'loaded') found.push({ origin, content: loaded.content });
  }
  return createInstructionSnapshot(options.systemPrompt, found);
}

/** The nearest directory from `start` upwards holding `.git`, stopping after `home` and before any directory others may write to. */
async function findRepositoryRoot(start: string, home: string | undefined): Promise<string | undefined> {
  let directory = start;
  for (;;) {
    if (await entryExists(path.join(directory, '.git'))) return directory;
    const parent = path.dirname(directory);
    if (directory === home || parent === directory || (await isSharedDirectory(parent))) return undefined;
    directory = parent;
  }
}

/** `outer`, then each directory below it down to `inner` (which lies inside `outer`). */
function directoriesBetween(outer: string, inner: string): string[] {
  const directories = [inner];
  for (let directory = inner; directory !== outer;) {
    directory = path.dirname(directory);
    directories.push(directory);
  }
  return directories.reverse();
}

/** A directory users other than its owner may write to (mode o+w, such as `/tmp`): anyone may have put a file there. */
async function isSharedDirectory(directory: string): Promise<boolean> {
  try {
    return ((await stat(directory)).mode & 0o002) !== 0;
  } catch {
    return true;
  }
}

type InstructionFile =
  | { readonly kind: 'absent' }
  | { readonly kind: 'refused'; readonly reason: string }
  | { readonly kind: 'loaded'; readonly content: string };

/** The file's text cut to `maxBytes` with a marker naming it by `origin`, if it is a regular file that stays inside `boundary`. */
async function readInstructionFile(
  file: string,
  origin: string,
  boundary: string,
  maxBytes: number,
): Promise<InstructionFile> {
  let real: string;
  try {
    real = await realpath(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ELOOP') return unreadable(file, error);
    if (!(await entryExists(file))) return { kind: 'absent' };
    return {
      kind: 'refused',
      reason: `${file} is a symbolic link to ${await readlink(file).catch(() => 'nowhere')}, which does not resolve`,
    };
  }
  if (!isInside(boundary, real)) {
    return { kind: 'refused', reason: `${file} is a symbolic link to ${real}, outside ${boundary}` };
  }
  let opened;
  try {
    opened = await openRegularFile(real, { followSymlinks: false });
  } catch (error) {
    return unreadable(file, error);
  }
  if (opened.kind === 'missing') return { kind: 'absent' };
  if (opened.kind === 'not-regular' && opened.fileKind === 'directory') return { kind: 'absent' };
  if (opened.kind !== 'opened') return { kind: 'refused', reason: describeRefusal(file, opened) };
  const { handle, stats } = opened;
  try {
    const openedAt = await openedPath(handle, real);
    if (openedAt === null || !isInside(boundary, openedAt)) {
      return { kind: 'refused', reason: `${file} changed while it was opened and may lie outside ${boundary}` };
    }
    if (stats.nlink > 1)
      return {
        kind: 'refused',
        reason: `${file} has ${stats.nlink} hard links, and another of them may be a file outside ${boundary}`,
      };
    const bytes = await readAtMost(handle, maxBytes);
    const text = bytes
      .subarray(0, maxBytes)
      .toString('utf8')
      .replace(/^\uFEFF/, '');
    if (bytes.length <= maxBytes) return { kind: 'loaded', content: text };
    const size = Math.max(stats.size, bytes.length);
    return {
      kind: 'loaded',
      content: `${text.replace(/\uFFFD$/, '')}\n\n[truncated: ${origin} is ${size} bytes; only the first ${maxBytes} were loaded]`,
    };
  } finally {
    await handle.close();
  }
}

function unreadable(file: string, error: unknown): never {
  throw new InvalidInputError({
    message: `The instructions file ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unknown error'}); fix its permissions or remove it.`,
    cause: error,
  });
}
