import {
  describeRefusal,
  openRegularFile,
  readLines,
  readRegularFile,
  type FileRefusal,
  type Line,
  type ReadLinesOptions,
} from '@forge/bounded-read';
import type { FileHandle } from 'node:fs/promises';
import { CorruptFileError } from './errors.js';

export interface StoredFileOptions {
  /** Refuse a file larger than this, judged before a byte is read (and again while reading). */
  readonly maxBytes?: number;
}

/** A missing file as the usual `ENOENT` error; anything else refused as a `CorruptFileError` naming the file. */
function refusalError(file: string, refusal: FileRefusal): Error {
  if (refusal.kind === 'missing')
    return Object.assign(new Error(`ENOENT: no such file or directory, open '${file}'`), {
      code: 'ENOENT',
      path: file,
    });
  return new CorruptFileError({ file, problem: describeRefusal('it', refusal) });
}

/**
 * Opens a file Forge keeps (a session log, a trace, a lock) for reading, if it is a regular file
 * (within `maxBytes`, when given). A missing file throws the usual `ENOENT` error; a FIFO, a
 * device or a directory in its place — which would stall a read or never end it — or a file over
 * the limit throws `CorruptFileError` naming it, without it being opened for reading. The caller
 * closes the handle.
 */
export async function openStoredFile(file: string, options: StoredFileOptions = {}): Promise<FileHandle> {
  const opened = await openRegularFile(file, options);
  if (opened.kind === 'opened') return opened.handle;
  throw refusalError(file, opened);
}

/** The whole content of a stored file (see `openStoredFile`); `maxBytes` bounds what is read. */
export async function readStoredFile(file: string, options: StoredFileOptions = {}): Promise<Buffer> {
  const read = await readRegularFile(file, options);
  if (read.kind === 'read') return read.bytes;
  throw refusalError(file, read);
}

/** Streams the lines of a stored file (see `openStoredFile` and `readLines`), closing it when done. */
export async function* readStoredLines(file: string, options: ReadLinesOptions = {}): AsyncGenerator<Line[]> {
  const handle = await openStoredFile(file);
  try {
    yield* readLines(handle, options);
  } finally {
    await handle.close();
  }
}
