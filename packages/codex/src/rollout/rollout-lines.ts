import { createReadStream } from 'node:fs';
import type { Hash } from 'node:crypto';

/**
 * Longest rollout line read, in bytes (64 MiB). A longer line is skipped whole, without ever
 * being held as one string: V8 cannot make a string of about 512 MB or more, and a line that
 * size is no record Forge can use.
 */
export const MAX_ROLLOUT_LINE_BYTES = 64 * 1024 * 1024;

/** One line of a rollout: its text, or only its size when it was over the limit. */
export type RolloutLine =
  | { readonly kind: 'line'; readonly text: string; readonly seq: number; readonly last: boolean; readonly terminated: boolean }
  | { readonly kind: 'oversized'; readonly bytes: number; readonly seq: number };

/**
 * Reads `path` line by line as a stream (LF-separated; a CR before the LF is dropped), holding at
 * most one line of `maxLineBytes` at a time. `seq` counts lines from 1. The last line says
 * whether the file ended with a newline (`terminated`), so a torn last write can be told from a
 * malformed record. Every byte read is fed to `hash`.
 */
export async function* readRolloutLines(path: string, options: { readonly maxLineBytes?: number; readonly hash?: Hash } = {}): AsyncGenerator<RolloutLine> {
  const limit = options.maxLineBytes ?? MAX_ROLLOUT_LINE_BYTES;
  const stream = createReadStream(path);
  let pieces: Buffer[] = [];
  let pending = 0;
  let skipping = false;
  let seq = 0;
  let held: { text: string; seq: number } | undefined;

  const text = (): string => {
    const line = Buffer.concat(pieces, pending);
    const end = line.length > 0 && line[line.length - 1] === 0x0d ? line.length - 1 : line.length;
    return line.toString('utf8', 0, end);
  };

  for await (const chunk of stream) {
    const buffer = chunk as Buffer;
    options.hash?.update(buffer);
    let start = 0;
    for (let newline = buffer.indexOf(0x0a, start); newline !== -1; newline = buffer.indexOf(0x0a, start)) {
      const piece = buffer.subarray(start, newline);
      start = newline + 1;
      seq += 1;
      if (skipping || pending + piece.length > limit) {
        if (held !== undefined) yield { kind: 'line', ...held, last: false, terminated: true };
        held = undefined;
        yield { kind: 'oversized', bytes: pending + piece.length, seq };
        pieces = [];
        pending = 0;
        skipping = false;
        continue;
      }
      pieces.push(piece);
      pending += piece.length;
      if (held !== undefined) yield { kind: 'line', ...held, last: false, terminated: true };
      held = { text: text(), seq };
      pieces = [];
      pending = 0;
    }
    const rest = buffer.subarray(start);
    if (rest.length === 0) continue;
    if (skipping || pending + rest.length > limit) {
      // Count the bytes of an overlong line without keeping them.
      pending += rest.length;
      pieces = [];
      skipping = true;
    } else {
      pieces.push(Buffer.from(rest));
      pending += rest.length;
    }
  }
  if (skipping) {
    if (held !== undefined) yield { kind: 'line', ...held, last: false, terminated: true };
    yield { kind: 'oversized', bytes: pending, seq: seq + 1 };
    return;
  }
  if (pending > 0) {
    if (held !== undefined) yield { kind: 'line', ...held, last: false, terminated: true };
    yield { kind: 'line', text: text(), seq: seq + 1, last: true, terminated: false };
    return;
  }
  if (held !== undefined) yield { kind: 'line', ...held, last: true, terminated: true };
}
