import { lineText, readLines, type Line } from '@forge/bounded-read';
import type { Hash } from 'node:crypto';
import { open } from 'node:fs/promises';

/**
 * Longest rollout line read, in bytes (64 MiB). A longer line is skipped whole, without ever
 * being held as one string: V8 cannot make a string of about 512 MB or more, and a line that
 * size is no record Forge can use.
 */
export const MAX_ROLLOUT_LINE_BYTES = 64 * 1024 * 1024;

/** One line of a rollout: its text, or only its size when it was over the limit. */
export type RolloutLine =
  | {
      readonly kind: 'line';
      readonly text: string;
      readonly seq: number;
      readonly last: boolean;
      readonly terminated: boolean;
    }
  | { readonly kind: 'oversized'; readonly bytes: number; readonly seq: number };

function rolloutLine(line: Line, last: boolean): RolloutLine {
  if (line.kind === 'oversized') return { kind: 'oversized', bytes: line.byteLength, seq: line.number };
  return { kind: 'line', text: lineText(line.bytes), seq: line.number, last, terminated: line.terminated };
}

/**
 * Reads `path` line by line as a stream (LF-separated; a CR before the LF is dropped), holding at
 * most one line of `maxLineBytes` at a time. `seq` counts lines from 1. The last line says
 * whether the file ended with a newline (`terminated`), so a torn last write can be told from a
 * malformed record. Every byte read is fed to `hash`.
 */
export async function* readRolloutLines(
  path: string,
  options: { readonly maxLineBytes?: number; readonly hash?: Hash } = {},
): AsyncGenerator<RolloutLine> {
  const handle = await open(path, 'r');
  try {
    let held: Line | undefined;
    const hash = options.hash;
    for await (const batch of readLines(handle, {
      maxLineBytes: options.maxLineBytes ?? MAX_ROLLOUT_LINE_BYTES,
      chunkBytes: 64 * 1024,
      ...(hash === undefined ? {} : { onChunk: (chunk) => hash.update(chunk) }),
    })) {
      for (const line of batch) {
        if (held !== undefined) yield rolloutLine(held, false);
        held = line;
      }
    }
    if (held !== undefined) yield rolloutLine(held, true);
  } finally {
    await handle.close();
  }
}
