import { readLines } from '@forge/bounded-read';
import { CorruptFileError } from './errors.js';
import { readSessionLog, type ParsedSessionLog } from './log-reader.js';
import { decodeLine } from './record-codec.js';
import type { SessionPaths } from './session-files.js';
import { refreshSessionIndex } from './session-index.js';
import { SessionStateBuilder } from './session-state.js';
import { openStoredFile } from './stored-file.js';

/** A log read from its current checkpoint's window on: the records a resume in mode `compact` needs. */
export interface ParsedSessionWindow extends ParsedSessionLog {
  /** When the latest run that recorded its end ended, as the index has it (that record may be before the window). */
  readonly lastRunEndedAt: string | undefined;
}

/** The log's header record, read alone and checked like any record; undefined when the first line is not one. */
async function readHeader(logFile: string, sessionId: string): Promise<SessionStateBuilder | undefined> {
  const handle = await openStoredFile(logFile);
  try {
    for await (const batch of readLines(handle, { maxLineBytes: Number.POSITIVE_INFINITY, chunkBytes: 4096 })) {
      const first = batch[0];
      if (first?.kind !== 'line' || !first.terminated) return undefined;
      const decoded = decodeLine(first.bytes);
      if (decoded.kind !== 'record') return undefined;
      const state = new SessionStateBuilder(sessionId);
      return state.apply(decoded.record) === undefined ? state : undefined;
    }
    return undefined;
  } finally {
    await handle.close();
  }
}

/**
 * Reads a v2 session log from where its index says a resume of its current checkpoint starts (the
 * first message the checkpoint keeps verbatim, or an earlier start of a run still going then):
 * the header, then every record from there, each checked as a whole read checks it (checksum,
 * schema, numbering, message positions — so an index that does not describe the log is caught).
 * The messages before the window are not read: their checksums were checked when the index was
 * made from the log. Undefined when there is no such window, or when anything does not fit: the
 * caller then reads the whole log, which also names the line of any damage.
 */
export async function readSessionWindow(
  paths: SessionPaths,
  sessionId: string,
): Promise<ParsedSessionWindow | undefined> {
  const outcome = await refreshSessionIndex(paths.logFile, paths.indexFile).catch(() => undefined);
  if (outcome === undefined || !('index' in outcome)) return undefined;
  const window = outcome.index.checkpoint?.window;
  if (window === undefined || window.seq < 1) return undefined;
  const state = await readHeader(paths.logFile, sessionId);
  if (state === undefined) return undefined;
  state.startWindow(window);
  try {
    const parsed = await readSessionLog({ file: paths.logFile, sessionId, from: { offset: window.offset, state } });
    // The window holds the current checkpoint's record, or the index was not the log's. A torn
    // tail is left to the whole read, whose warning names its line.
    if (parsed.state.checkpoint === undefined || parsed.tornBytes > 0 || parsed.missingFinalNewline) return undefined;
    return { ...parsed, lastRunEndedAt: outcome.index.lastRunEndedAt };
  } catch (error) {
    if (CorruptFileError.isInstance(error)) return undefined;
    throw error;
  }
}
