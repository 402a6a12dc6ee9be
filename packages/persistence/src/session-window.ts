import { readLines, splitLines } from '@forge/bounded-read';
import type { Message } from '@forge/core';
import { closeSync, openSync, readSync } from 'node:fs';
import { CorruptFileError } from './errors.js';
import { readSessionLog, readSessionLogSync, type ParsedSessionLog } from './log-reader.js';
import { forgeHomeLayout } from './home.js';
import { sessionPaths } from './session-files.js';
import type { LoadedSession } from './session-writer.js';
import { decodeLine } from './record-codec.js';
import type { SessionPaths } from './session-files.js';
import { isRequest, refreshSessionIndex, type SessionIndex } from './session-index.js';
import { SessionStateBuilder, type SessionTranscript, type StoredCheckpoint } from './session-state.js';
import { openStoredFile } from './stored-file.js';

/** A log read from its current checkpoint's window on: the records a resume in mode `compact` needs. */
export interface ParsedSessionWindow extends ParsedSessionLog {
  /** When the latest run that recorded its end ended, as the index has it (that record may be before the window). */
  readonly lastRunEndedAt: string | undefined;
  readonly start: WindowStart;
  /** User requests (see `isRequest`) before the window. */
  readonly requestsBefore: number;
  /** The model the latest run that named one started on, as the index has it. */
  readonly lastModel: SessionIndex['lastModel'];
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
    const { index } = outcome;
    const inWindow = parsed.state.messages.filter(
      (message, position) => window.messageIndex + position < index.messageCount && isRequest(message),
    ).length;
    return {
      ...parsed,
      requestsBefore: index.userRequests - inWindow,
      lastModel: index.lastModel,
      lastRunEndedAt: outcome.index.lastRunEndedAt,
      start: { offset: window.offset, messageIndex: window.messageIndex },
    };
  } catch (error) {
    if (CorruptFileError.isInstance(error)) return undefined;
    throw error;
  }
}

/** Where a window starts in its log: the byte of its first record and the transcript's length before it. */
export interface WindowStart {
  readonly offset: number;
  readonly messageIndex: number;
}

/**
 * The messages recorded just before a window, from the last `bytes` bytes before it (whole
 * records only, each checked like any record), oldest first: a longer recent part of the
 * transcript without reading all of it. Undefined when a record there does not check or the
 * messages are not the ones right before the window.
 */
export function readMessagesBefore(
  logFile: string,
  window: WindowStart,
  bytes: number,
): readonly Message[] | undefined {
  const start = Math.max(0, window.offset - bytes);
  const buffer = Buffer.allocUnsafe(window.offset - start);
  const descriptor = openSync(logFile, 'r');
  try {
    let filled = 0;
    while (filled < buffer.length) {
      const read = readSync(descriptor, buffer, filled, buffer.length - filled, start + filled);
      if (read === 0) return undefined;
      filled += read;
    }
  } finally {
    closeSync(descriptor);
  }
  // Starting mid-record, the bytes up to the first newline belong to a record left out.
  const from = start === 0 ? 0 : buffer.indexOf(0x0a) + 1;
  if (from === 0 && start !== 0) return [];
  const found: { index: number; message: Message }[] = [];
  for (const line of splitLines(buffer.subarray(from), { maxLineBytes: Number.POSITIVE_INFINITY })) {
    if (line.kind !== 'line' || !line.terminated) return undefined;
    const decoded = decodeLine(line.bytes);
    if (decoded.kind !== 'record') return undefined;
    if (decoded.record.type === 'message') found.push({ index: decoded.record.index, message: decoded.record.message });
  }
  const first = window.messageIndex - found.length;
  return found.every((entry, position) => entry.index === first + position)
    ? found.map((entry) => entry.message)
    : undefined;
}

/** A session read without its lock from its current checkpoint's window (see `loadSessionWindow`). */
export interface StoredSessionWindow {
  readonly id: string;
  readonly checkpoint: StoredCheckpoint;
  /** The messages from `firstMessage` on and the runs seen since. */
  readonly loaded: LoadedSession;
  /** The whole session as `loadTranscript` reads it, up to the same record (read when called). */
  whole(): SessionTranscript;
}

/**
 * Reads a v2 session without taking its lock and without writing anything but its index (a
 * cache): only its current checkpoint's window when the index gives one (see
 * `readSessionWindow`), for a reader that needs what a turn in mode `compact` sends (`forge
 * context`). Undefined when there is no usable window: read the whole session instead.
 */
export async function loadSessionWindow(home: string, id: string): Promise<StoredSessionWindow | undefined> {
  const paths = sessionPaths(forgeHomeLayout(home), id);
  let parsed: ParsedSessionWindow | undefined;
  try {
    parsed = await readSessionWindow(paths, id);
  } catch {
    return undefined;
  }
  const checkpoint = parsed?.state.checkpoint;
  if (parsed === undefined || checkpoint === undefined) return undefined;
  const { state, start } = parsed;
  const ended = state.runs.flatMap((run) => (run.endedAt === undefined ? [] : [run.endedAt]));
  return {
    id,
    checkpoint,
    loaded: {
      firstMessage: state.firstMessage,
      messages: state.messages,
      runs: state.runs,
      lastRunEndedAt: ended.at(-1) ?? parsed.lastRunEndedAt,
      workspaceRoot: state.workspaceRoot,
      checkpoint,
      requestsBefore: parsed.requestsBefore,
      lastModel: state.runs.findLast((run) => run.model !== undefined)?.model ?? parsed.lastModel,
      before: (bytes) => readMessagesBefore(paths.logFile, start, bytes),
    },
    whole: () => readSessionLogSync({ file: paths.logFile, sessionId: id, bytes: parsed.intactBytes }).transcript,
  };
}
