import { LineSplitter, readLines, splitLines, type Line } from '@forge/bounded-read';
import { closeSync, openSync, readSync } from 'node:fs';
import { CorruptFileError, UnsupportedSchemaError } from './errors.js';
import { decodeLine } from './record-codec.js';
import { SUPPORTED_SESSION_SCHEMAS, type SessionRecord } from './records.js';
import { SessionStateBuilder, type SessionTranscript, type SessionWarning } from './session-state.js';
import { openStoredFile } from './stored-file.js';

/** A session log read into memory, with where its intact part ends. */
export interface ParsedSessionLog {
  readonly transcript: SessionTranscript;
  /** The builder after the last intact record, for a writer to continue from. */
  readonly state: SessionStateBuilder;
  /** Bytes from the start of the file through the last intact record (and its newline, if any). */
  readonly intactBytes: number;
  /** The last intact record has no newline after it (the crash came just before the newline). */
  readonly missingFinalNewline: boolean;
  /** Bytes after the intact part: a torn last record. */
  readonly tornBytes: number;
}

/** Where a read of a window of a log starts: a record's line, and the state of the log before it. */
export interface LogWindowStart {
  readonly offset: number;
  readonly state: SessionStateBuilder;
}

/** Sees each intact record with where its line starts and ends (bytes, newline included when there is one) and the line's bytes. */
export type RecordObserver = (record: SessionRecord, offset: number, end: number, line: Buffer) => void;

/**
 * Folds the lines of a session log, in order, into a session. Only a torn tail is left out, with a
 * warning: bytes after the last newline that do not make a record, which is all a write cut short
 * by a crash can leave (every record is written with its newline). A damaged or impossible line
 * ending in a newline — the last one too — throws `CorruptFileError` naming the file and line,
 * because it was written whole and dropping it would silently lose history. Each record is
 * checked (checksum, schema) once.
 */
class SessionLogParser {
  readonly state: SessionStateBuilder;
  readonly warnings: SessionWarning[] = [];
  intactBytes = 0;
  missingFinalNewline = false;
  torn = false;

  constructor(
    private readonly options: {
      readonly file: string;
      readonly sessionId: string;
      readonly size: number;
      readonly onRecord?: RecordObserver;
      /** A window: the state before the record at `offset` (see `SessionStateBuilder.startWindow`). */
      readonly from?: LogWindowStart;
    },
  ) {
    this.state = options.from?.state ?? new SessionStateBuilder(options.sessionId);
    this.intactBytes = options.from?.offset ?? 0;
  }

  /** Takes one line; false once a torn tail ended the log. */
  line(line: Line): boolean {
    const { file, size } = this.options;
    if (line.kind === 'oversized') throw new Error('unreachable: session log lines are not bounded');
    const lineEnd = line.offset + line.bytes.length;
    const decoded = decodeLine(line.bytes);
    if (decoded.kind === 'damaged') {
      if (line.terminated) {
        const last =
          lineEnd + 1 === size
            ? '; it is the last line, but it ends with a newline, so it was written whole and then damaged'
            : '';
        throw new CorruptFileError({ file, line: line.number, problem: `${decoded.problem}${last}` });
      }
      this.warnings.push({
        code: 'torn_tail',
        message:
          `Ignored an incomplete last record at line ${line.number} of ${file} (${size - line.offset} bytes, no newline after them; ${decoded.problem}). ` +
          `A crash probably cut it short while it was written; the ${line.number - 1} records before it are intact.`,
      });
      this.torn = true;
      return false;
    }
    if (decoded.kind === 'invalid') {
      if (typeof decoded.version === 'number' && decoded.version > 2) {
        throw new UnsupportedSchemaError({ file, version: decoded.version, supported: SUPPORTED_SESSION_SCHEMAS });
      }
      throw new CorruptFileError({ file, line: line.number, problem: decoded.problem });
    }
    const problem = this.state.apply(decoded.record);
    if (problem !== undefined) throw new CorruptFileError({ file, line: line.number, problem });
    this.intactBytes = line.terminated ? lineEnd + 1 : lineEnd;
    this.missingFinalNewline = !line.terminated;
    this.options.onRecord?.(decoded.record, line.offset, this.intactBytes, line.bytes);
    return true;
  }

  finish(size: number): ParsedSessionLog {
    const transcript = this.state.build({ warnings: this.warnings });
    if (transcript === undefined) {
      throw new CorruptFileError({ file: this.options.file, problem: 'the log has no complete session header' });
    }
    return {
      transcript,
      state: this.state,
      intactBytes: this.intactBytes,
      missingFinalNewline: this.missingFinalNewline,
      tornBytes: size - this.intactBytes,
    };
  }
}

/**
 * `readSessionLog` without awaiting: the records of the first `bytes` bytes of a log (a writer
 * holding the lock reads back what it wrote, when a window it opened turns out too short).
 */
export function readSessionLogSync(options: {
  readonly file: string;
  readonly sessionId: string;
  readonly bytes: number;
}): ParsedSessionLog {
  const descriptor = openSync(options.file, 'r');
  try {
    const parser = new SessionLogParser({ ...options, size: options.bytes });
    const splitter = new LineSplitter({ maxLineBytes: Number.POSITIVE_INFINITY });
    const chunk = Buffer.allocUnsafe(READ_CHUNK_BYTES);
    let position = 0;
    reading: while (position < options.bytes) {
      const bytesRead = readSync(descriptor, chunk, 0, Math.min(chunk.length, options.bytes - position), position);
      if (bytesRead === 0) break;
      position += bytesRead;
      for (const line of splitter.push(chunk.subarray(0, bytesRead))) if (!parser.line(line)) break reading;
    }
    for (const line of splitter.end()) parser.line(line);
    return parser.finish(options.bytes);
  } finally {
    closeSync(descriptor);
  }
}

/** Reads every record of a session log already in memory (see `readSessionLog`). */
export function parseSessionLog(
  buffer: Buffer,
  options: { readonly file: string; readonly sessionId: string },
): ParsedSessionLog {
  const parser = new SessionLogParser({ ...options, size: buffer.length });
  for (const line of splitLines(buffer, { maxLineBytes: Number.POSITIVE_INFINITY })) if (!parser.line(line)) break;
  return parser.finish(buffer.length);
}

/** Bytes read at a time: large enough that a 1 GB log takes a thousand reads, small next to the records kept. */
const READ_CHUNK_BYTES = 1024 * 1024;

/**
 * Reads every record of a session log from disk, a chunk at a time: only the records and one
 * line are held, never the file's bytes. The same rules as `parseSessionLog`; `onRecord` sees
 * each intact record with its byte range (to index the log on the way).
 */
export async function readSessionLog(options: {
  readonly file: string;
  readonly sessionId: string;
  readonly onRecord?: RecordObserver;
  /** Reads only the records from a place on (a window), continuing the state given; line numbers then count from there. */
  readonly from?: LogWindowStart;
}): Promise<ParsedSessionLog> {
  const handle = await openStoredFile(options.file);
  try {
    const size = (await handle.stat()).size;
    const parser = new SessionLogParser({ ...options, size });
    reading: for await (const batch of readLines(handle, {
      maxLineBytes: Number.POSITIVE_INFINITY,
      chunkBytes: READ_CHUNK_BYTES,
      ...(options.from === undefined ? {} : { start: options.from.offset }),
    })) {
      for (const line of batch) if (!parser.line(line)) break reading;
    }
    return parser.finish(Math.max(size, parser.intactBytes));
  } finally {
    await handle.close();
  }
}
