import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashMessages, type Message } from '@forge/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MessagesHasher } from '@forge/core';
import { readRolloutLines, type RolloutLine } from './rollout-lines.js';

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'forge-rollout-lines-'));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function linesOf(content: string, maxLineBytes: number): Promise<RolloutLine[]> {
  const file = join(directory, 'lines.jsonl');
  await writeFile(file, content);
  const lines: RolloutLine[] = [];
  for await (const line of readRolloutLines(file, { maxLineBytes })) lines.push(line);
  return lines;
}

describe('readRolloutLines', () => {
  it('gives every line with its number, marks the last and whether it ended with a newline, and skips overlong lines unread', async () => {
    const lines = await linesOf('one\r\n0123456789\nthree', 8);
    expect(lines).toEqual([
      { kind: 'line', text: 'one', seq: 1, last: false, terminated: true },
      { kind: 'oversized', bytes: 10, seq: 2 },
      { kind: 'line', text: 'three', seq: 3, last: true, terminated: false },
    ]);
    expect(await linesOf('a\nb\n', 8)).toEqual([
      { kind: 'line', text: 'a', seq: 1, last: false, terminated: true },
      { kind: 'line', text: 'b', seq: 2, last: true, terminated: true },
    ]);
  });

  it('agrees with splitting the text on newlines, for any text and limit', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.string({ maxLength: 12 }).map((text) => text.replace(/[\r\n]/g, '')),
          { maxLength: 8 },
        ),
        fc.boolean(),
        fc.integer({ min: 1, max: 16 }),
        async (parts, terminated, limit) => {
          const content = parts.join('\n') + (terminated && parts.length > 0 ? '\n' : '');
          const lines = await linesOf(content, limit);
          const expected = content === '' ? [] : (content.endsWith('\n') ? content.slice(0, -1) : content).split('\n');
          expect(lines.map((line) => line.seq)).toEqual(expected.map((_, index) => index + 1));
          lines.forEach((line, index) => {
            const text = expected[index] ?? '';
            if (Buffer.byteLength(text) > limit)
              expect(line).toEqual({ kind: 'oversized', bytes: Buffer.byteLength(text), seq: index + 1 });
            else expect(line).toMatchObject({ kind: 'line', text });
          });
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('MessagesHasher', () => {
  it('gives exactly hashMessages of the same messages', () => {
    const messages: Message[] = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'text', text: 'hello' }] },
    ];
    for (const count of [0, 1, 2]) {
      const hasher = new MessagesHasher();
      for (const message of messages.slice(0, count)) hasher.add(message);
      expect(hasher.digest()).toBe(hashMessages(messages.slice(0, count)));
    }
  });
});
