import { lstat, open, realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { createInstructionSnapshot, InvalidInputError, type InstructionSnapshot } from '@forge/core';

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
  /** Where the upward search stops at the latest (default: the user's home directory). */
  readonly homeDirectory?: string;
}

/**
 * Loads the instructions of one run: the system prompt, then every `AGENTS.md` from the
 * outermost directory down to the workspace root, so the file closest to the workspace has the
 * last word. The search walks up from the workspace root and stops after the first directory
 * holding `.git` (the repository root), after the home directory, or at the filesystem root,
 * whichever comes first. Origins are absolute paths. Call it once per run and keep the snapshot.
 */
export async function loadInstructions(options: LoadInstructionsOptions): Promise<InstructionSnapshot> {
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_INSTRUCTION_FILE_BYTES;
  let start: string;
  try {
    start = await realpath(path.resolve(options.workspaceRoot));
  } catch (error) {
    throw new InvalidInputError({ message: `The workspace root ${options.workspaceRoot} cannot be opened; check that the directory exists.`, cause: error });
  }
  const home = await realpath(options.homeDirectory ?? homedir()).catch(() => undefined);

  const found: { origin: string; content: string }[] = [];
  for (const directory of directoriesUpward(start)) {
    const file = path.join(directory, INSTRUCTIONS_FILE_NAME);
    const content = await readBounded(file, maxFileBytes);
    if (content !== undefined) found.push({ origin: file, content });
    if (directory === home || (await exists(path.join(directory, '.git')))) break;
  }
  return createInstructionSnapshot(options.systemPrompt, found.reverse());
}

function* directoriesUpward(start: string): Generator<string> {
  let directory = start;
  for (;;) {
    yield directory;
    const parent = path.dirname(directory);
    if (parent === directory) return;
    directory = parent;
  }
}

async function exists(candidate: string): Promise<boolean> {
  try {
    await lstat(candidate);
    return true;
  } catch {
    return false;
  }
}

/** The file's text cut to `maxBytes` with a marker, or undefined when there is no such regular file. */
async function readBounded(file: string, maxBytes: number): Promise<string | undefined> {
  try {
    if (!(await stat(file)).isFile()) return undefined;
  } catch {
    return undefined;
  }
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    throw new InvalidInputError({
      message: `The instructions file ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unknown error'}); fix its permissions or remove it.`,
      cause: error,
    });
  }
  try {
    const size = (await handle.stat()).size;
    const buffer = Buffer.alloc(Math.min(size, maxBytes));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, bytesRead).toString('utf8').replace(/^\uFEFF/, '');
    if (size <= maxBytes) return text;
    return `${text.replace(/\uFFFD$/, '')}\n\n[truncated: ${file} is ${size} bytes; only the first ${maxBytes} were loaded]`;
  } finally {
    await handle.close();
  }
}
