import { writeFileAtomic } from '@forge/bounded-read';
import { readFileSync, statSync } from 'node:fs';
import type { z } from 'zod';
import { PRIVATE_FILE_MODE } from './private-fs.js';

/** A file as a stat saw it: another size or modification time means what was made of it must be made again. */
export interface FileStamp {
  readonly size: number;
  readonly mtimeMs: number;
}

/** The stamp of a regular file, or undefined when there is none (missing, a directory, a FIFO). */
export function stampOf(file: string): FileStamp | undefined {
  const stats = statSync(file, { throwIfNoEntry: false });
  return stats?.isFile() === true ? { size: stats.size, mtimeMs: stats.mtimeMs } : undefined;
}

export const sameStamp = (left: FileStamp | undefined, right: FileStamp | undefined): boolean =>
  left !== undefined && right !== undefined && left.size === right.size && left.mtimeMs === right.mtimeMs;

/**
 * A JSON cache file, synchronously (a listing of thousands of sessions cannot afford an
 * asynchronous call per file): undefined when it is missing, not a regular file (a FIFO must not
 * stall the reader), over `maxBytes`, not JSON, or not of `schema`. A cache is only ever rebuilt.
 */
export function readJsonCache<Schema extends z.ZodType>(
  file: string,
  schema: Schema,
  maxBytes: number,
): z.infer<Schema> | undefined {
  try {
    const stamp = stampOf(file);
    if (stamp === undefined || stamp.size > maxBytes) return undefined;
    const parsed = schema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Replaces a JSON cache file atomically, private, without a flush: a crash may lose it and the
 * next reader rebuilds it. A failure to write (a read-only home) is ignored for the same reason.
 */
export async function writeJsonCache(file: string, value: unknown): Promise<void> {
  try {
    await writeFileAtomic(file, `${JSON.stringify(value)}\n`, { mode: PRIVATE_FILE_MODE, flush: false });
  } catch {
    // A cache that cannot be written is made again next time.
  }
}
