import { CorruptFileError } from './errors.js';
import { forgeHomeLayout } from './home.js';
import { decodeLine } from './record-codec.js';
import type { CheckpointRecord } from './records.js';
import { sessionPaths, type SessionPaths } from './session-files.js';
import { sessionIndex, type SessionIndex, type SessionTotals } from './session-index.js';
import type { StoredCheckpoint } from './session-state.js';
import { readLines } from '@forge/bounded-read';
import type { Message } from '@forge/core';
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
  return checkpointAt(paths, await sessionIndex(paths.logFile, paths.indexFile));
}

async function checkpointAt(paths: SessionPaths, index: SessionIndex): Promise<CheckpointRecord | undefined> {
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

/** A session's current checkpoint with the messages recorded after it, read without the rest of the log. */
export interface CheckpointWindow {
  readonly index: SessionIndex;
  readonly checkpoint: StoredCheckpoint | undefined;
  /** Every message recorded after the checkpoint's record, by its position in the transcript. */
  readonly after: readonly { readonly index: number; readonly message: Message; readonly runId?: string }[];
}

/**
 * The current checkpoint of a v2 session (at the offset its index gives) and the message records
 * after it, each checked like any record: what `forge checkpoint show` needs, read in time
 * proportional to what follows the checkpoint, not to the session. The messages the checkpoint
 * stands for are not read: their checksums were checked when the index was made from the log.
 */
export async function readCheckpointWindow(home: string, id: string): Promise<CheckpointWindow> {
  const paths = sessionPaths(forgeHomeLayout(home), id);
  const index = await sessionIndex(paths.logFile, paths.indexFile);
  const record = await checkpointAt(paths, index);
  if (record === undefined || index.checkpoint === undefined) return { index, checkpoint: undefined, after: [] };
  const after: { index: number; message: Message; runId?: string }[] = [];
  let seq = index.checkpoint.seq + 1;
  const handle = await openStoredFile(paths.logFile);
  try {
    for await (const batch of readLines(handle, {
      maxLineBytes: Number.POSITIVE_INFINITY,
      start: index.checkpoint.end,
    })) {
      for (const line of batch) {
        if (line.kind !== 'line' || !line.terminated || line.offset >= index.logBytes) break;
        const decoded = decodeLine(line.bytes);
        if (decoded.kind !== 'record' || decoded.record.seq !== seq)
          throw new CorruptFileError({
            file: paths.logFile,
            problem: `the record at byte ${line.offset}: ${decoded.kind === 'record' ? `expected record number ${seq}, found ${decoded.record.seq}` : decoded.problem}`,
          });
        seq += 1;
        const found = decoded.record;
        if (found.type === 'message')
          after.push({
            index: found.index,
            message: found.message,
            ...(found.runId === undefined ? {} : { runId: found.runId }),
          });
      }
    }
  } finally {
    await handle.close();
  }
  const checkpoint = { source: record.source, checkpoint: record.checkpoint, recordedAt: record.at };
  return { index, checkpoint, after };
}
