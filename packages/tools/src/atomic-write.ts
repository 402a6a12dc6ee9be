import { randomBytes } from 'node:crypto';
import { chmod, link, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';

export interface AtomicWriteOptions {
  /** Permission bits for the file; without it the process umask decides, as for a new file. */
  readonly mode?: number;
  /** Fail with `EEXIST` instead of replacing an existing file. */
  readonly exclusive?: boolean;
}

/**
 * Writes `data` to `target` so readers see either the old file or the complete new one: the data
 * goes to a temporary file in the same directory, is flushed, then renamed over the target (or,
 * when `exclusive`, hard-linked to it, which fails if the target appeared meanwhile).
 */
export async function writeFileAtomic(target: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const temporary = path.join(path.dirname(target), `.${path.basename(target)}.forge-${randomBytes(6).toString('hex')}.tmp`);
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
