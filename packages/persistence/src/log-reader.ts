import { splitLines } from '@forge/bounded-read';
import { CorruptFileError, UnsupportedSchemaError } from './errors.js';
import { decodeLine } from './record-codec.js';
import { SUPPORTED_SESSION_SCHEMAS } from './records.js';
import { SessionStateBuilder, type SessionTranscript, type SessionWarning } from './session-state.js';

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

/**
 * Reads every record of a session log. Only a torn tail is left out, with a warning: bytes after
 * the last newline that do not make a record, which is all a write cut short by a crash can leave
 * (every record is written with its newline). A damaged or impossible line ending in a newline —
 * the last one too — throws `CorruptFileError` naming the file and line, because it was written
 * whole and dropping it would silently lose history.
 */
export function parseSessionLog(
  buffer: Buffer,
  options: { readonly file: string; readonly sessionId: string },
): ParsedSessionLog {
  const state = new SessionStateBuilder(options.sessionId);
  const warnings: SessionWarning[] = [];
  let intactBytes = 0;
  let missingFinalNewline = false;

  for (const line of splitLines(buffer, { maxLineBytes: Number.POSITIVE_INFINITY })) {
    if (line.kind === 'oversized') throw new Error('unreachable: session log lines are not bounded');
    const lineEnd = line.offset + line.bytes.length;
    const decoded = decodeLine(line.bytes);
    if (decoded.kind === 'damaged') {
      if (line.terminated) {
        const last =
          lineEnd + 1 === buffer.length
            ? '; it is the last line, but it ends with a newline, so it was written whole and then damaged'
            : '';
        throw new CorruptFileError({ file: options.file, line: line.number, problem: `${decoded.problem}${last}` });
      }
      warnings.push({
        code: 'torn_tail',
        message:
          `Ignored an incomplete last record at line ${line.number} of ${options.file} (${buffer.length - line.offset} bytes, no newline after them; ${decoded.problem}). ` +
          `A crash probably cut it short while it was written; the ${line.number - 1} records before it are intact.`,
      });
      break;
    }
    if (decoded.kind === 'invalid') {
      if (typeof decoded.version === 'number' && decoded.version > 2) {
        throw new UnsupportedSchemaError({
          file: options.file,
          version: decoded.version,
          supported: SUPPORTED_SESSION_SCHEMAS,
        });
      }
      throw new CorruptFileError({ file: options.file, line: line.number, problem: decoded.problem });
    }
    const problem = state.apply(decoded.record);
    if (problem !== undefined) throw new CorruptFileError({ file: options.file, line: line.number, problem });
    intactBytes = line.terminated ? lineEnd + 1 : lineEnd;
    missingFinalNewline = !line.terminated;
  }

  const transcript = state.build({ warnings });
  if (transcript === undefined) {
    throw new CorruptFileError({ file: options.file, problem: 'the log has no complete session header' });
  }
  return { transcript, state, intactBytes, missingFinalNewline, tornBytes: buffer.length - intactBytes };
}
