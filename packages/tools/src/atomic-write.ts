import { randomBytes } from 'node:crypto';
import { chmod, link, open, readdir, rename, unlink } from 'node:fs/promises';
import path from 'node:path';

export interface AtomicWriteOptions {
  /** Permission bits for the file; without it the process umask decides, as for a new file. */
  readonly mode?: number;
  /** Fail with `EEXIST` instead of replacing an existing file. */
  readonly exclusive?: boolean;
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
 * when `exclusive`, hard-linked to it, which fails if the target appeared meanwhile). Temporaries
 * of the same target left by a process that died mid-write are removed first, so a crash leaves
 * at most one behind, and only until that file is written again.
 */
export async function writeFileAtomic(target: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const directory = path.dirname(target);
  const base = path.basename(target);
  await removeAbandonedTemporaries(directory, base);
  const temporary = path.join(directory, temporaryName(base));
  const handle = await open(temporary, 'wx');
  let moved = false;
  try {
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (options.mode !== undefined) await chmod(temporary, options.mode);
    if (options.exclusive) {
      await link(temporary, target);
    } else {
      await rename(temporary, target);
      moved = true;
    }
  } finally {
    if (!moved) await unlink(temporary).catch(() => undefined);
  }
}
