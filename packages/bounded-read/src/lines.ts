import type { FileHandle } from 'node:fs/promises';

/** The longest line held in memory unless a caller says otherwise (8 MiB); a longer one is reported by its size only. */
export const DEFAULT_MAX_LINE_BYTES = 8 * 1024 * 1024;

const DEFAULT_CHUNK_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** One line of a file, without its newline. */
export type Line =
  | {
      readonly kind: 'line';
      /** 1-based, counting empty lines too, so it matches an editor's. */
      readonly number: number;
      /** Where the line starts, in bytes from the start of the file. */
      readonly offset: number;
      readonly bytes: Buffer;
      /** False only for a last line with no newline after it: a write cut short, or one still going. */
      readonly terminated: boolean;
    }
  /** A line longer than the limit: only its size is known, its bytes were never held together. */
  | {
      readonly kind: 'oversized';
      readonly number: number;
      readonly offset: number;
      readonly byteLength: number;
      readonly terminated: boolean;
    };

/** A run of bytes of one line within one chunk; `ends` says a newline follows it. */
export interface LinePiece {
  readonly bytes: Buffer;
  readonly ends: boolean;
}

export interface LineOptions {
  /** Lines longer than this (in bytes, a `\r` before the newline included) are reported as `oversized`. */
  readonly maxLineBytes?: number;
}

export interface ReadLinesOptions extends LineOptions {
  /** Bytes read at a time (default 1 MiB). */
  readonly chunkBytes?: number;
  /** Sees every chunk read, in order, before its lines are split (to hash the file as it streams). */
  readonly onChunk?: (chunk: Buffer) => void;
  /** Where to start reading, in bytes (a line start); offsets stay counted from the file's start, line numbers from here. */
  readonly start?: number;
}

/** Cuts `chunk` at its newlines. The last piece has `ends: false` unless the chunk ends with a newline (then it is empty and left out). */
export function* piecesOf(chunk: Buffer): Generator<LinePiece> {
  let start = 0;
  for (let newline = chunk.indexOf(NEWLINE); newline !== -1; newline = chunk.indexOf(NEWLINE, start)) {
    yield { bytes: chunk.subarray(start, newline), ends: true };
    start = newline + 1;
  }
  if (start < chunk.length) yield { bytes: chunk.subarray(start), ends: false };
}

/**
 * Splits bytes pushed in chunks of any size into lines (LF-separated), holding at most one line of
 * `maxLineBytes`: the bytes of a longer line are counted and dropped as they arrive. Pushing the
 * same bytes cut at any other points gives the same lines.
 */
export class LineSplitter {
  private readonly maxLineBytes: number;
  private pieces: Buffer[] = [];
  private pending = 0;
  private skipping = false;
  private number = 0;
  private lineStart = 0;
  private position = 0;

  constructor(options: LineOptions & { readonly start?: number } = {}) {
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.lineStart = options.start ?? 0;
  }

  /** The lines `chunk` completes. A line's bytes may share memory with `chunk`. */
  push(chunk: Buffer): Line[] {
    const lines: Line[] = [];
    for (const piece of piecesOf(chunk)) {
      if (piece.ends) lines.push(this.finish(piece.bytes, true));
      else this.hold(piece.bytes);
    }
    this.position += chunk.length;
    return lines;
  }

  /** The last line, when the bytes did not end with a newline. */
  end(): Line[] {
    return this.pending > 0 || this.skipping ? [this.finish(Buffer.alloc(0), false)] : [];
  }

  private hold(piece: Buffer): void {
    this.pending += piece.length;
    if (this.skipping || this.pending > this.maxLineBytes) {
      this.skipping = true;
      this.pieces = [];
    } else {
      this.pieces.push(Buffer.from(piece));
    }
  }

  private finish(piece: Buffer, terminated: boolean): Line {
    const byteLength = this.pending + piece.length;
    const offset = this.lineStart;
    this.number += 1;
    const line: Line =
      this.skipping || byteLength > this.maxLineBytes
        ? { kind: 'oversized', number: this.number, offset, byteLength, terminated }
        : {
            kind: 'line',
            number: this.number,
            offset,
            bytes: this.pieces.length === 0 ? piece : Buffer.concat([...this.pieces, piece], byteLength),
            terminated,
          };
    this.pieces = [];
    this.pending = 0;
    this.skipping = false;
    this.lineStart = offset + byteLength + 1;
    return line;
  }
}

/** Every line of bytes already in memory (see `LineSplitter`). */
export function splitLines(bytes: Buffer, options: LineOptions = {}): Line[] {
  const splitter = new LineSplitter(options);
  return [...splitter.push(bytes), ...splitter.end()];
}

/** A line's text: UTF-8, without a `\r` before its newline. */
export function lineText(bytes: Buffer): string {
  const end = bytes.length > 0 && bytes[bytes.length - 1] === CARRIAGE_RETURN ? bytes.length - 1 : bytes.length;
  return bytes.toString('utf8', 0, end);
}

async function* chunksOf(handle: FileHandle, options: ReadLinesOptions): AsyncGenerator<Buffer> {
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  let position = options.start ?? 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(chunkBytes);
    const { bytesRead } = await handle.read(chunk, 0, chunkBytes, position);
    if (bytesRead === 0) return;
    position += bytesRead;
    const data = chunk.subarray(0, bytesRead);
    options.onChunk?.(data);
    yield data;
  }
}

/**
 * Streams the lines of an open file from its start, one batch per chunk read (which keeps the
 * cost per line low on large files), holding one chunk and one line at most. The caller opens and
 * closes `handle` (`openRegularFile` opens only a regular file, so a FIFO cannot stall the read).
 */
export async function* readLines(handle: FileHandle, options: ReadLinesOptions = {}): AsyncGenerator<Line[]> {
  const splitter = new LineSplitter(options);
  for await (const chunk of chunksOf(handle, options)) {
    const lines = splitter.push(chunk);
    if (lines.length > 0) yield lines;
  }
  const last = splitter.end();
  if (last.length > 0) yield last;
}

/** Streams an open file as pieces of lines (see `piecesOf`), for a reader that checks lines without ever holding one whole. */
export async function* readLinePieces(
  handle: FileHandle,
  options: Omit<ReadLinesOptions, keyof LineOptions> = {},
): AsyncGenerator<LinePiece> {
  for await (const chunk of chunksOf(handle, options)) yield* piecesOf(chunk);
}

/**
 * Streams the lines of an open file from its end backwards, reading only as much as the lines
 * taken need. A newline ending the file does not make an empty last line.
 */
export async function* readLinesBackward(
  handle: FileHandle,
  options: { readonly chunkBytes?: number } = {},
): AsyncGenerator<{ readonly offset: number; readonly bytes: Buffer }> {
  const chunkBytes = options.chunkBytes ?? 64 * 1024;
  const size = (await handle.stat()).size;
  let position = size;
  let carry = Buffer.alloc(0);
  let first = true;
  while (position > 0) {
    const length = Math.min(chunkBytes, position);
    position -= length;
    const chunk = Buffer.alloc(length);
    await handle.read(chunk, 0, length, position);
    const data = carry.length === 0 ? chunk : Buffer.concat([chunk, carry]);
    let end = data.length;
    if (first && data[end - 1] === NEWLINE) end -= 1;
    first = false;
    let newline = end === 0 ? -1 : data.lastIndexOf(NEWLINE, end - 1);
    while (newline !== -1) {
      yield { offset: position + newline + 1, bytes: data.subarray(newline + 1, end) };
      end = newline;
      newline = end === 0 ? -1 : data.lastIndexOf(NEWLINE, end - 1);
    }
    carry = Buffer.from(data.subarray(0, end));
  }
  if (size > 0) yield { offset: 0, bytes: carry };
}
