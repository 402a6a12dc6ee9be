import { readLinePieces } from '@forge/bounded-read';
import { crc32 } from 'node:zlib';
import { CRC_SUFFIX_LENGTH, checksumProblem } from './record-codec.js';
import { openStoredFile } from './stored-file.js';

const CHUNK_BYTES = 256 * 1024;
/** Enough of a line's start to hold `{"v":2,"seq":<n>,`. */
const HEAD_BYTES = 40;

/** Where a log first fails the checks a listing can afford, or undefined when it passes them. */
export interface LogDamage {
  /** 1-based. */
  readonly line: number;
  readonly problem: string;
}

/**
 * Checks every complete line of a session log without parsing it: its checksum, and that the
 * records are numbered 0, 1, 2, … with no gap. Streams the file, holding one chunk and a few bytes
 * of each line, so it costs little more than reading the bytes. Bytes after the last newline (a
 * torn tail) are not damage. What it cannot see (a record with a valid checksum and an impossible
 * shape) loading still finds.
 */
export async function findLogDamage(file: string): Promise<LogDamage | undefined> {
  const handle = await openStoredFile(file);
  try {
    let line = 1;
    let crc = 0;
    let head = Buffer.alloc(0);
    // The last bytes of the line so far: they may turn out to be its checksum suffix, which the checksum does not cover.
    let window = Buffer.alloc(0);
    let lineBytes = 0;
    for await (const piece of readLinePieces(handle, { chunkBytes: CHUNK_BYTES })) {
      if (head.length < HEAD_BYTES) head = Buffer.concat([head, piece.bytes.subarray(0, HEAD_BYTES - head.length)]);
      const joined = window.length === 0 ? piece.bytes : Buffer.concat([window, piece.bytes]);
      const keep = Math.min(CRC_SUFFIX_LENGTH, joined.length);
      crc = crc32(joined.subarray(0, joined.length - keep), crc);
      window = Buffer.from(joined.subarray(joined.length - keep));
      lineBytes += piece.bytes.length;
      if (!piece.ends) continue;
      const problem = lineProblem(lineBytes, window, crc, head, line - 1);
      if (problem !== undefined) return { line, problem };
      line += 1;
      crc = 0;
      head = Buffer.alloc(0);
      window = Buffer.alloc(0);
      lineBytes = 0;
    }
    return undefined;
  } finally {
    await handle.close();
  }
}

function lineProblem(
  lineBytes: number,
  suffix: Buffer,
  crc: number,
  head: Buffer,
  expectedSeq: number,
): string | undefined {
  const damage = checksumProblem(lineBytes, suffix, crc);
  if (damage !== undefined) return damage;
  const seq = /^\{"v":\d+,"seq":(\d+)[,}]/.exec(head.toString('latin1'))?.[1];
  if (seq !== undefined && Number(seq) !== expectedSeq) return `expected record number ${expectedSeq}, found ${seq}`;
  return undefined;
}
