import { describeRefusal, openRegularFile } from '@forge/bounded-read';
import type { FileHandle } from 'node:fs/promises';
import { CorruptFileError } from './errors.js';

/**
 * Opens a file Forge keeps (a session log, a trace, a lock) for reading, if it is a regular file.
 * A missing file throws the usual `ENOENT` error; a FIFO, a device or a directory in its place —
 * which would stall a read or never end it — throws `CorruptFileError` naming it, without it being
 * opened for reading. The caller closes the handle.
 */
export async function openStoredFile(file: string): Promise<FileHandle> {
  const opened = await openRegularFile(file);
  if (opened.kind === 'opened') return opened.handle;
  if (opened.kind === 'missing') throw Object.assign(new Error(`ENOENT: no such file or directory, open '${file}'`), { code: 'ENOENT', path: file });
  throw new CorruptFileError({ file, problem: describeRefusal('it', opened) });
}

/** The whole content of a stored file (see `openStoredFile`). */
export async function readStoredFile(file: string): Promise<Buffer> {
  const handle = await openStoredFile(file);
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
