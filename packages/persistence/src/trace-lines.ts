import { StringDecoder } from 'node:string_decoder';
import { openStoredFile } from './stored-file.js';

/** The longest line kept in memory, in characters; a longer one is skipped and reported, so one bad line cannot exhaust memory. */
const MAX_TRACE_LINE_CHARS = 8 * 1024 * 1024;

/** One line of a trace file, without its newline. */
export type TraceLine =
  | {
      readonly kind: 'line';
      /** 1-based. */
      readonly number: number;
      readonly text: string;
      /** False only for a last line the file does not end with a newline after. */
      readonly terminated: boolean;
    }
  | { readonly kind: 'oversized'; readonly number: number; readonly chars: number; readonly terminated: boolean };

/**
 * Splits a file into lines as it streams, holding at most one read chunk and one line (up to
 * `maxLineChars`) in memory. Yields the lines of each chunk as one batch, which keeps the cost
 * per line low on large traces. A trailing `\r` is removed; empty lines are passed on too, so
 * line numbers match an editor's. UTF-8 characters split across chunks are decoded whole.
 */
export async function* readTraceLines(file: string, options: { readonly maxLineChars?: number; readonly chunkBytes?: number } = {}): AsyncGenerator<TraceLine[]> {
  const maxLineChars = options.maxLineChars ?? MAX_TRACE_LINE_CHARS;
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let pendingChars = 0;
  let oversized = false;
  let number = 0;

  const finish = (tail: string, terminated: boolean): TraceLine => {
    number += 1;
    const chars = pendingChars + tail.length;
    const whole = oversized || chars > maxLineChars ? undefined : pending.length === 0 ? tail : pending + tail;
    pending = '';
    pendingChars = 0;
    oversized = false;
    if (whole === undefined) return { kind: 'oversized', number, chars, terminated };
    return { kind: 'line', number, text: whole.endsWith('\r') ? whole.slice(0, -1) : whole, terminated };
  };

  const split = (text: string): TraceLine[] => {
    const lines: TraceLine[] = [];
    let start = 0;
    let newline = text.indexOf('\n');
    while (newline !== -1) {
      lines.push(finish(text.slice(start, newline), true));
      start = newline + 1;
      newline = text.indexOf('\n', start);
    }
    if (start < text.length) {
      const rest = text.slice(start);
      pendingChars += rest.length;
      if (pendingChars > maxLineChars) {
        oversized = true;
        pending = '';
      } else {
        pending += rest;
      }
    }
    return lines;
  };

  // Only a regular file: a FIFO given as a trace would block the read for ever.
  const handle = await openStoredFile(file);
  try {
    for await (const chunk of handle.createReadStream({ highWaterMark: options.chunkBytes ?? 1024 * 1024, autoClose: false }) as AsyncIterable<Buffer>) {
      const lines = split(decoder.write(chunk));
      if (lines.length > 0) yield lines;
    }
  } finally {
    await handle.close();
  }
  const lines = split(decoder.end());
  if (pendingChars > 0 || oversized) lines.push(finish('', false));
  if (lines.length > 0) yield lines;
}
