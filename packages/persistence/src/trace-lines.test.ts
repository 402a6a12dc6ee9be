import fc from 'fast-check';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTraceLines, type TraceLine } from './trace-lines.js';

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'forge-trace-lines-'));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function readAll(file: string, options: Parameters<typeof readTraceLines>[1]): Promise<TraceLine[]> {
  const lines: TraceLine[] = [];
  for await (const batch of readTraceLines(file, options)) lines.push(...batch);
  return lines;
}

/** Lines without newlines, mixing ASCII, multi-byte characters (split across chunks) and `\r`. */
const lineText = fc.string({ unit: fc.constantFrom('a', '{', '"', 'é', '€', '😀', ' ', '\r'), maxLength: 40 });

describe('readTraceLines', () => {
  it('gives back every line with its number, whatever the chunk size', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(lineText, { maxLength: 12 }), fc.boolean(), fc.integer({ min: 1, max: 64 }), async (texts, finalNewline, chunkBytes) => {
        const file = path.join(directory, `lines-${run++}.jsonl`);
        const content = texts.join('\n') + (finalNewline && texts.length > 0 ? '\n' : '');
        await writeFile(file, content);
        const lines = await readAll(file, { chunkBytes });

        // What follows the last newline is a line only if it is not empty.
        const expected = content.split('\n');
        if (expected.at(-1) === '') expected.pop();
        expect(lines.map((line) => (line.kind === 'line' ? line.text : '?'))).toEqual(expected.map((text) => (text.endsWith('\r') ? text.slice(0, -1) : text)));
        expect(lines.map((line) => line.number)).toEqual(expected.map((_, index) => index + 1));
        expect(lines.map((line) => line.terminated)).toEqual(expected.map((_, index) => index < expected.length - 1 || content.endsWith('\n')));
      }),
      { numRuns: 150 },
    );
  });

  it('skips a line longer than the limit without holding it, and goes on', async () => {
    const file = path.join(directory, 'oversized.jsonl');
    await writeFile(file, `short\n${'x'.repeat(5000)}\nafter\n${'y'.repeat(300)}`);
    const lines = await readAll(file, { maxLineChars: 200, chunkBytes: 64 });
    expect(lines).toEqual([
      { kind: 'line', number: 1, text: 'short', terminated: true },
      { kind: 'oversized', number: 2, chars: 5000, terminated: true },
      { kind: 'line', number: 3, text: 'after', terminated: true },
      { kind: 'oversized', number: 4, chars: 300, terminated: false },
    ]);
  });
});
