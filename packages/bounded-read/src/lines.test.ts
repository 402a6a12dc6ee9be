import fc from 'fast-check';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  lineText,
  LineSplitter,
  readLinePieces,
  readLines,
  readLinesBackward,
  splitLines,
  type Line,
} from './lines.js';

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'forge-lines-'));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** Contents mixing ASCII, JSON punctuation, multi-byte characters (which chunks may split), `\r` and newlines. */
const contents = fc
  .string({ unit: fc.constantFrom('a', '{', '"', 'é', '€', '😀', ' ', '\r', '\n', '\n'), maxLength: 200 })
  .map((text) => Buffer.from(text));

/** Cut points inside `bytes`, sorted. */
function cutsOf(bytes: Buffer): fc.Arbitrary<number[]> {
  return fc
    .uniqueArray(fc.integer({ min: 0, max: bytes.length }), { maxLength: 12 })
    .map((cuts) => [...cuts].sort((a, b) => a - b));
}

function pushInChunks(bytes: Buffer, cuts: readonly number[], maxLineBytes?: number): Line[] {
  const splitter = new LineSplitter(maxLineBytes === undefined ? {} : { maxLineBytes });
  const lines: Line[] = [];
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    lines.push(...splitter.push(bytes.subarray(start, cut)));
    start = cut;
  }
  return [...lines, ...splitter.end()];
}

/** What the lines of `bytes` are, by the plainest reading: split at every newline; what follows the last is a line only if not empty. */
function expectedLines(bytes: Buffer, maxLineBytes = Number.POSITIVE_INFINITY): Line[] {
  const texts = bytes.toString('latin1').split('\n');
  const endsWithNewline = texts.at(-1) === '';
  if (endsWithNewline) texts.pop();
  let offset = 0;
  return texts.map((text, index) => {
    const line = Buffer.from(text, 'latin1');
    const terminated = index < texts.length - 1 || endsWithNewline;
    const common = { number: index + 1, offset, terminated };
    offset += line.length + 1;
    return line.length > maxLineBytes
      ? { kind: 'oversized', ...common, byteLength: line.length }
      : { kind: 'line', ...common, bytes: line };
  });
}

function comparable(lines: readonly Line[]): unknown[] {
  return lines.map((line) => (line.kind === 'line' ? { ...line, bytes: line.bytes.toString('hex') } : line));
}

describe('LineSplitter', () => {
  it('gives the same lines, numbers, offsets and torn last line however the bytes are cut into chunks', () => {
    fc.assert(
      fc.property(
        contents.chain((bytes) => fc.tuple(fc.constant(bytes), cutsOf(bytes))),
        ([bytes, cuts]) => {
          expect(comparable(pushInChunks(bytes, cuts))).toEqual(comparable(expectedLines(bytes)));
          expect(comparable(splitLines(bytes))).toEqual(comparable(expectedLines(bytes)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reports a line over the limit by its size only, however it is cut, and goes on with the next', () => {
    fc.assert(
      fc.property(
        contents.chain((bytes) => fc.tuple(fc.constant(bytes), cutsOf(bytes), fc.integer({ min: 0, max: 30 }))),
        ([bytes, cuts, limit]) => {
          expect(comparable(pushInChunks(bytes, cuts, limit))).toEqual(comparable(expectedLines(bytes, limit)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('skips a long line without holding it and names the lines around it', () => {
    const bytes = Buffer.from(`short\n${'x'.repeat(5000)}\nafter\n${'y'.repeat(300)}`);
    expect(comparable(pushInChunks(bytes, [10, 64, 3000, 5010], 200))).toEqual([
      { kind: 'line', number: 1, offset: 0, bytes: Buffer.from('short').toString('hex'), terminated: true },
      { kind: 'oversized', number: 2, offset: 6, byteLength: 5000, terminated: true },
      { kind: 'line', number: 3, offset: 5007, bytes: Buffer.from('after').toString('hex'), terminated: true },
      { kind: 'oversized', number: 4, offset: 5013, byteLength: 300, terminated: false },
    ]);
  });
});

describe('lineText', () => {
  it('decodes UTF-8 and drops one carriage return before the newline', () => {
    expect(lineText(Buffer.from('{"a":"é😀"}\r'))).toBe('{"a":"é😀"}');
    expect(lineText(Buffer.from('a\r\r'))).toBe('a\r');
    expect(lineText(Buffer.alloc(0))).toBe('');
  });
});

describe('reading a file', () => {
  let run = 0;
  async function withFile<T>(
    bytes: Buffer,
    read: (handle: Awaited<ReturnType<typeof open>>) => Promise<T>,
  ): Promise<T> {
    const file = path.join(directory, `file-${run++}.jsonl`);
    await writeFile(file, bytes);
    const handle = await open(file);
    try {
      return await read(handle);
    } finally {
      await handle.close();
    }
  }

  it('readLines gives the lines of the file whatever the chunk size, and shows every byte to onChunk', async () => {
    await fc.assert(
      fc.asyncProperty(contents, fc.integer({ min: 1, max: 64 }), async (bytes, chunkBytes) => {
        const seen: Buffer[] = [];
        const lines = await withFile(bytes, async (handle) => {
          const all: Line[] = [];
          for await (const batch of readLines(handle, {
            chunkBytes,
            onChunk: (chunk) => seen.push(Buffer.from(chunk)),
          }))
            all.push(...batch);
          return all;
        });
        expect(comparable(lines)).toEqual(comparable(expectedLines(bytes)));
        expect(Buffer.concat(seen).equals(bytes)).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it('readLinePieces gives pieces that join back into the file', async () => {
    await fc.assert(
      fc.asyncProperty(contents, fc.integer({ min: 1, max: 64 }), async (bytes, chunkBytes) => {
        const pieces = await withFile(bytes, async (handle) => {
          const all: string[] = [];
          for await (const piece of readLinePieces(handle, { chunkBytes }))
            all.push(piece.bytes.toString('latin1') + (piece.ends ? '\n' : ''));
          return all;
        });
        expect(pieces.join('')).toBe(bytes.toString('latin1'));
      }),
      { numRuns: 100 },
    );
  });

  it('readLinesBackward gives the lines last first, with their offsets', async () => {
    await fc.assert(
      fc.asyncProperty(contents, fc.integer({ min: 1, max: 64 }), async (bytes, chunkBytes) => {
        const lines = await withFile(bytes, async (handle) => {
          const all: { offset: number; bytes: string }[] = [];
          for await (const line of readLinesBackward(handle, { chunkBytes }))
            all.push({ offset: line.offset, bytes: line.bytes.toString('hex') });
          return all;
        });
        const expected = expectedLines(bytes).map((line) => ({
          offset: line.offset,
          bytes: line.kind === 'line' ? line.bytes.toString('hex') : '',
        }));
        expect(lines).toEqual(expected.reverse());
      }),
      { numRuns: 100 },
    );
  });
});
