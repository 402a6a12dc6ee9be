import { CorruptFileError } from './errors.js';
import { forgeHomeLayout } from './home.js';
import { decodeLine } from './record-codec.js';
import type { CheckpointRecord } from './records.js';
import { sessionPaths } from './session-files.js';
import { sessionIndex, type SessionTotals } from './session-index.js';
import { openStoredFile } from './stored-file.js';

/**
 * The running totals of a v2 session's runs (tokens, cached tokens, cost, runs), from its index:
 * a few small reads whatever the session's size. Throws the usual `ENOENT` for a session without a
 * v2 log, `CorruptFileError` when the records the index had to read are damaged.
 */
export async function sessionTotals(home: string, id: string): Promise<SessionTotals> {
  const paths = sessionPaths(forgeHomeLayout(home), id);
  return (await sessionIndex(paths.logFile, paths.indexFile)).totals;
}

/**
 * The record of a v2 session's current checkpoint, read alone at the offset its index gives and
 * checked like any record (checksum, schema, the number the index expects); undefined when the
 * session has none. Throws `CorruptFileError` when the record is not what the index says.
 */
export async function currentCheckpointRecord(home: string, id: string): Promise<CheckpointRecord | undefined> {
  const paths = sessionPaths(forgeHomeLayout(home), id);
  const index = await sessionIndex(paths.logFile, paths.indexFile);
  if (index.checkpoint === undefined) return undefined;
  const { offset, end, seq } = index.checkpoint;
  const handle = await openStoredFile(paths.logFile);
  let bytes: Buffer;
  try {
    bytes = Buffer.alloc(end - offset - 1);
    await handle.read(bytes, 0, bytes.length, offset);
  } finally {
    await handle.close();
  }
  const decoded = decodeLine(bytes);
  if (decoded.kind !== 'record' || decoded.record.type !== 'checkpoint' || decoded.record.seq !== seq)
    throw new CorruptFileError({
      file: paths.logFile,
      problem: `the checkpoint record at byte ${offset} is not the one its index (${paths.indexFile}) names; delete the index to have it rebuilt`,
    });
  return decoded.record;
}
