import { constants } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { link, open, readdir, rename, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

export interface AtomicWriteOptions {
  /** Permission bits of the file, set before a byte is written; without it the process umask decides, as for a new file. */
  readonly mode?: number;
  /** Fail with `EEXIST` instead of replacing an existing file. */
  readonly exclusive?: boolean;
  /** Also flush the directory, so the new name survives a power cut (what Forge keeps in its home needs this). */
  readonly syncDirectory?: boolean;
  /**
   * Flush the data before the rename (default true). A cache that is rebuilt when lost (a session
   * index, a hint) passes false: a crash may then lose the new file, never leave half of one.
   */
  readonly flush?: boolean;
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

/** Writes all of `data` at the handle's position (the end, for a file opened to append). */
export async function writeAll(handle: FileHandle, data: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    const { bytesWritten } = await handle.write(data, offset, data.length - offset);
    offset += bytesWritten;
  }
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
    throw Object.assign(new Error(`Could not write ${file} (${reason})${writeFailureHint(error)}.`, { cause: error }), {
      code,
      path: file,
    });
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

/** `.<name>.forge-<pid>-<12 hex>.tmp`: the temporary a write of `<name>` uses, tagged with the writing process. */
function temporaryName(base: string): string {
  return `.${base}.forge-${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
}

function writerOf(name: string, base: string): number | undefined {
  const prefix = `.${base}.forge-`;
  if (!name.startsWith(prefix)) return undefined;
  const match = /^(\d+)-[0-9a-f]{12}\.tmp$/.exec(name.slice(prefix.length));
  return match === null ? undefined : Number(match[1]);
}

/** Whether `name` is a temporary `writeFileAtomic` makes while writing a file named `base` (see `temporaryName`). */
export function isAtomicWriteTemporary(name: string, base: string): boolean {
  return writerOf(name, base) !== undefined;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * Removes the temporaries of `base` in `directory` whose writer no longer runs: a process killed
 * between creating one and renaming it left it behind. A live writer's temporary is left alone.
 */
async function removeAbandonedTemporaries(directory: string, base: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch {
    return;
  }
  const abandoned = names.filter((name) => {
    const pid = writerOf(name, base);
    return pid !== undefined && pid !== process.pid && !isRunning(pid);
  });
  await Promise.all(abandoned.map((name) => unlink(path.join(directory, name)).catch(() => undefined)));
}

/**
 * Writes `data` to `target` so readers see either the old file or the complete new one: the data
 * goes to a temporary file in the same directory, is flushed, then renamed over the target (or,
 * when `exclusive`, hard-linked to it, which fails if the target appeared meanwhile). A failure
 * removes the temporary and leaves the old file as it was; a failed write of the data names the
 * target (see `writeDurably`). Temporaries of the same target left by a process that died
 * mid-write are removed first, so a crash leaves at most one behind, and only until that file is
 * written again. The directory must exist.
 */
export async function writeFileAtomic(
  target: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const directory = path.dirname(target);
  const base = path.basename(target);
  await removeAbandonedTemporaries(directory, base);
  const temporary = path.join(directory, temporaryName(base));
  const handle = await open(temporary, 'wx', options.mode ?? 0o666);
  let moved = false;
  try {
    try {
      // The mode given to open is filtered through the umask; set it exactly before any data is in the file.
      if (options.mode !== undefined) await handle.chmod(options.mode);
      const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      if (options.flush === false) await writeAll(handle, bytes);
      else await writeDurably(handle, bytes, target);
    } finally {
      await handle.close();
    }
    if (options.exclusive) {
      await link(temporary, target);
    } else {
      await rename(temporary, target);
      moved = true;
    }
    if (options.syncDirectory) await syncDirectory(directory);
  } finally {
    if (!moved) await unlink(temporary).catch(() => undefined);
  }
}
