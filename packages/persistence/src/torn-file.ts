import { dirname } from 'node:path';
import { openPrivateFile } from './private-fs.js';
import { syncDirectory, writeDurably } from '@forge/bounded-read';
import { openStoredFile } from './stored-file.js';

/** Where the torn tails cut off a log are kept: `<log>.torn` beside it. */
export function tornFilePath(logFile: string): string {
  return `${logFile}.torn`;
}

/**
 * Appends `tail` (the bytes after a log's last intact record) and a newline to the log's `.torn`
 * file (0600), flushed, and returns its path. Each tail cut off becomes one line of that file. A
 * tail already kept there last (Forge stopped between keeping it and cutting it off) is not
 * appended twice.
 */
export async function keepTornTail(logFile: string, tail: Uint8Array): Promise<string> {
  const file = tornFilePath(logFile);
  const entry = Buffer.concat([tail, Buffer.from('\n')]);
  if (await endsWith(file, entry)) return file;
  const handle = await openPrivateFile(file, { exclusive: false });
  try {
    await writeDurably(handle, entry, file);
  } finally {
    await handle.close();
  }
  await syncDirectory(dirname(file));
  return file;
}

async function endsWith(file: string, entry: Buffer): Promise<boolean> {
  let handle;
  try {
    handle = await openStoredFile(file);
  } catch {
    return false;
  }
  try {
    const size = (await handle.stat()).size;
    if (size < entry.length) return false;
    const end = Buffer.alloc(entry.length);
    await handle.read(end, 0, entry.length, size - entry.length);
    return end.equals(entry);
  } finally {
    await handle.close();
  }
}
