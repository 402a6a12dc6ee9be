import { hashMessages, type Message } from '@forge/core';
import { withRunIds } from '@forge/core/checkpoint';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSession, openSession } from './session-open.js';
import { loadTranscript } from './session-read.js';
import { readMessagesBefore } from './session-window.js';
import { useTemporaryHome } from './temporary-home.test-helpers.js';

const temporaryHome = useTemporaryHome();
const usage = {
  inputTokens: 1,
  cacheReadTokens: undefined,
  cacheWriteTokens: undefined,
  outputTokens: 1,
  reasoningTokens: undefined,
};

/** What happens to a session, in order: runs (some never ended), checkpoints keeping a tail, reopening. */
type Step =
  | { readonly kind: 'run'; readonly texts: readonly string[]; readonly ends: boolean }
  | { readonly kind: 'checkpoint'; readonly keep: number }
  | { readonly kind: 'reopen' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('run' as const),
    texts: fc.array(fc.string({ minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 4 }),
    ends: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('checkpoint' as const), keep: fc.nat({ max: 6 }) }),
  fc.constant({ kind: 'reopen' as const }),
);

function message(text: string, position: number): Message {
  return position % 2 === 0
    ? { role: 'user', content: text }
    : { role: 'assistant', content: [{ type: 'text', text }] };
}

/** Writes `steps` to a new session through the writer, closing and reopening it where they say. */
async function sessionOf(home: string, id: string, steps: readonly Step[]): Promise<void> {
  let writer = await createSession(home, { workspaceRoot: '/w', id });
  let run = 0;
  for (const next of steps) {
    if (next.kind === 'reopen') {
      await writer.close();
      writer = await openSession(home, id);
    } else if (next.kind === 'run') {
      const runId = `run_${(run += 1)}`;
      await writer.recordRunStart({ runId });
      const first = writer.messageCount;
      await writer.appendMessages(
        next.texts.map((text, position) => message(text, first + position)),
        { runId },
      );
      if (next.ends) await writer.recordRunEnd({ runId, status: 'completed', usage });
    } else if (writer.messageCount > 0) {
      const messages = writer.messages;
      const count = messages.length;
      const tailStart = Math.max(0, count - next.keep);
      await writer.recordCheckpoint({
        source: {
          summarizedThrough: tailStart,
          sourceHash: hashMessages(messages, 0, tailStart),
          tailStart,
          tailHash: hashMessages(messages, tailStart, count),
          messageCount: count,
        },
        checkpoint: { strategy: 'codex-import', view: 'what happened' },
      });
    }
  }
  await writer.close();
}

describe("a session's checkpoint window", () => {
  it('holds the kept tail and every run of the messages it holds, whatever the runs, checkpoints and reopenings before', async () => {
    let sample = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 14 }), async (steps) => {
        const home = await temporaryHome();
        const id = `session_${(sample += 1)}`;
        await sessionOf(home, id, steps);
        const whole = await loadTranscript(home, id);
        const windowed = await openSession(home, id, { window: true });
        try {
          expect(windowed.windowed).toBe(whole.checkpoint !== undefined);
          if (whole.checkpoint === undefined) return;
          const { firstMessage, messages, runs } = windowed.loaded;
          expect(firstMessage).toBeLessThanOrEqual(whole.checkpoint.source.tailStart);
          expect(messages).toEqual(whole.messages.slice(firstMessage));
          expect(windowed.checkpoint).toEqual(whole.checkpoint);
          // Each loaded message belongs to the same run as in the whole log.
          const shifted = runs.map((entry) => ({
            ...entry,
            firstMessageIndex: entry.firstMessageIndex - firstMessage,
          }));
          expect(withRunIds(messages, shifted)).toEqual(withRunIds(whole.messages, whole.runs).slice(firstMessage));
          const open = (list: typeof runs) =>
            list.filter((entry) => entry.endedAt === undefined).map((entry) => entry.runId);
          expect(open(runs)).toEqual(open(whole.runs));
          // The messages right before the window, from any number of bytes before it, are the transcript's.
          const before = windowed.loaded.before?.(200) ?? [];
          expect(before).toEqual(whole.messages.slice(firstMessage - before.length, firstMessage));
          expect(windowed.loaded.before?.(Number.MAX_SAFE_INTEGER)).toEqual(whole.messages.slice(0, firstMessage));
        } finally {
          await windowed.close();
        }
      }),
      { numRuns: 30 },
    );
  });

  it('gives no messages before it from bytes that do not check', async () => {
    const home = await temporaryHome();
    await sessionOf(home, 'damaged', [
      { kind: 'run', texts: ['one', 'two'], ends: true },
      { kind: 'run', texts: ['three', 'four'], ends: true },
      { kind: 'checkpoint', keep: 0 },
    ]);
    const windowed = await openSession(home, 'damaged', { window: true });
    const logFile = windowed.logFile;
    const { firstMessage } = windowed.loaded;
    await windowed.close();
    const { readFile, writeFile } = await import('node:fs/promises');
    const bytes = await readFile(logFile);
    const second = bytes.indexOf(10) + 1;
    bytes[second + 20] = (bytes[second + 20] as number) ^ 0x01;
    await writeFile(logFile, bytes);
    const end = bytes.lastIndexOf(10, bytes.length - 2) + 1;
    expect(readMessagesBefore(logFile, { offset: end, messageIndex: firstMessage }, end)).toBeUndefined();
  });
});
