import { readLines } from '@forge/bounded-read';
import { stat } from 'node:fs/promises';
import { forgeHomeLayout } from './home.js';
import { decodeLine } from './record-codec.js';
import { sessionPaths } from './session-files.js';
import { sessionIndex, stillDescribes, suffixOf } from './session-index.js';
import { loadTranscript } from './session-read.js';
import { openStoredFile } from './stored-file.js';

/** A session's run ids as far as `logBytes` of its log, whose record there ends with `lastSuffix`; `nextSeq` numbers the next record. */
export interface SessionRunIds {
  readonly runIds: readonly string[];
  readonly logBytes: number;
  readonly lastSuffix: string;
  readonly nextSeq: number;
}

/** The run ids `known` gives, and those the records from its end on first name; undefined when a record there fails a check. */
async function appendedRunIds(logFile: string, known: SessionRunIds): Promise<SessionRunIds | undefined> {
  const runIds = [...known.runIds];
  const seen = new Set(runIds);
  let { logBytes, lastSuffix, nextSeq } = known;
  const handle = await openStoredFile(logFile);
  try {
    for await (const batch of readLines(handle, {
      maxLineBytes: Number.POSITIVE_INFINITY,
      chunkBytes: 1024 * 1024,
      start: known.logBytes,
    })) {
      for (const line of batch) {
        // A torn tail (no newline yet) ends what is read, as it ends loading.
        if (line.kind !== 'line' || !line.terminated) return { runIds, logBytes, lastSuffix, nextSeq };
        const decoded = decodeLine(line.bytes);
        if (decoded.kind !== 'record' || decoded.record.seq !== nextSeq) return undefined;
        const { record } = decoded;
        if ((record.type === 'run.started' || record.type === 'run.ended') && !seen.has(record.runId)) {
          seen.add(record.runId);
          runIds.push(record.runId);
        }
        logBytes = line.offset + line.bytes.length + 1;
        lastSuffix = suffixOf(line.bytes);
        nextSeq += 1;
      }
    }
  } finally {
    await handle.close();
  }
  return { runIds, logBytes, lastSuffix, nextSeq };
}

/**
 * The ids of a v2 session's runs, in the order its log first names them (as `loadTranscript` lists
 * them). Given what an earlier call returned, while the log still ends that part where it did, only
 * the records appended since are read, with the log's checks (checksum, schema, numbering);
 * otherwise, or when one of them fails, the whole log is loaded, and a damaged log throws as
 * loading does.
 */
export async function sessionRunIds(home: string, id: string, known?: SessionRunIds): Promise<SessionRunIds> {
  const paths = sessionPaths(forgeHomeLayout(home), id);
  if (known !== undefined && (await stillDescribes(paths.logFile, known, (await stat(paths.logFile)).size))) {
    const appended = await appendedRunIds(paths.logFile, known);
    if (appended !== undefined) return appended;
  }
  // The index first: the transcript, read after it, covers at least what the index describes.
  const index = await sessionIndex(paths.logFile, paths.indexFile);
  const runIds = (await loadTranscript(home, id)).runs.map((run) => run.runId);
  return { runIds, logBytes: index.logBytes, lastSuffix: index.lastSuffix, nextSeq: index.nextSeq };
}
