import type { Message } from '@forge/core';
import { ScriptedModel } from '@forge/core/testing';
import { useTemporaryHome } from '@forge/persistence/test-helpers/temporary-home';
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filler, instructionsFrom } from './compaction-fixtures.test-helpers.js';
import { openSessionHandle, type SessionHandle } from './session-turn.js';

const temporaryHome = useTemporaryHome();
const instructions = instructionsFrom('Use pnpm.');
const model = { provider: 'scripted', modelId: 'scripted' };

/** A clock and run ids that are the same in every copy of a session, so their logs can be compared byte for byte. */
function deterministic(prefix = 'run_a'): { now: () => number; newRunId: () => string } {
  let tick = 1_767_000_000_000;
  let run = 0;
  return { now: () => (tick += 1000), newRunId: () => `${prefix}${(run += 1).toString().padStart(4, '0')}` };
}

const logFile = (home: string, id: string) => join(home, 'sessions', id, 'session.jsonl');
const indexFileOf = (home: string, id: string) => join(home, 'sessions', id, 'session.index.json');

async function turn(handle: SessionHandle, request: string): Promise<ScriptedModel> {
  const scripted = new ScriptedModel([{ text: `Answer to ${request}. ${filler(request.length)}` }]);
  await handle.runTurn({ model: scripted, request, instructions, context: { mode: 'compact' } });
  return scripted;
}

/** A session of runs, compacted by hand with a kept tail, and two runs after the checkpoint. */
async function compactedSession(home: string): Promise<string> {
  const handle = await openSessionHandle({ home, workspaceRoot: '/work/project', ...deterministic() });
  for (let index = 0; index < 12; index += 1) await turn(handle, `Question ${index}. ${filler(index, 900)}`);
  const compacted = await handle.compact({
    model: new ScriptedModel([]),
    instructions,
    context: { recentTailTokens: 1_500 },
  });
  if (compacted.outcome.kind !== 'compacted') throw new Error('expected a checkpoint');
  expect(compacted.outcome.tailStart).toBeGreaterThan(0);
  expect(compacted.outcome.tailStart).toBeLessThan(handle.messages.length);
  await turn(handle, 'Question after the checkpoint');
  await turn(handle, 'Another question after it');
  await handle.close();
  return handle.id;
}

/** What opening the session (as a window or whole) shows, and the request its next turn sends. */
async function resume(home: string, id: string, window: boolean) {
  const handle = await openSessionHandle({ home, sessionId: id, window, ...deterministic('run_b') });
  try {
    const firstMessage = handle.loaded.firstMessage;
    const view = handle.selectView({ mode: 'compact', model });
    const warn = handle.selectView({ mode: 'warn', model });
    const scripted = await turn(handle, 'Continue');
    return { firstMessage, view, warn: warn.history.length, request: scripted.requests[0] };
  } finally {
    await handle.close();
  }
}

async function copyOf(home: string): Promise<string> {
  const copy = await temporaryHome();
  await rm(copy, { recursive: true, force: true });
  await cp(home, copy, { recursive: true });
  return copy;
}

describe('resume in mode compact reads the checkpoint and what follows it', () => {
  it('sends and stores exactly what a resume that read the whole log does, having loaded only the window', async () => {
    const home = await temporaryHome();
    const id = await compactedSession(home);
    const whole = await copyOf(home);
    const windowed = await resume(home, id, true);
    const read = await resume(whole, id, false);

    expect(read.firstMessage).toBe(0);
    expect(windowed.firstMessage).toBeGreaterThan(0);
    expect(windowed.firstMessage).toBeLessThanOrEqual(windowed.view.tailStart);
    expect(windowed.view.checkpoint?.strategy).toBe('forge-state');
    expect(windowed.view).toEqual(read.view);
    expect(windowed.request).toEqual(read.request);
    expect(windowed.warn).toBe(read.warn);
    const log = (at: string) => readFile(logFile(at, id));
    expect((await log(home)).equals(await log(whole))).toBe(true);
  });

  it.each([
    ['deleted', async (file: string) => rm(file)],
    ['not JSON', async (file: string) => writeFile(file, '{"v":2,"logBytes":')],
    [
      'naming a window that is not in the log',
      async (file: string) => {
        const index = JSON.parse(await readFile(file, 'utf8')) as { checkpoint: { window: { offset: number } } };
        index.checkpoint.window.offset += 7;
        await writeFile(file, JSON.stringify(index));
      },
    ],
    [
      'naming a window after the kept tail',
      async (file: string) => {
        const index = JSON.parse(await readFile(file, 'utf8')) as {
          checkpoint: { offset: number; seq: number; window: Record<string, number> };
          messageCount: number;
        };
        index.checkpoint.window = {
          offset: index.checkpoint.offset,
          seq: index.checkpoint.seq,
          messageIndex: index.messageCount,
        };
        await writeFile(file, JSON.stringify(index));
      },
    ],
  ])('gives the same results with an index %s', async (_damage, damage) => {
    const home = await temporaryHome();
    const id = await compactedSession(home);
    const whole = await copyOf(home);
    const indexFile = indexFileOf(home, id);
    // The writer's close left the index fresh; damage it in place, keeping the log as it is.
    await damage(indexFile);
    const windowed = await resume(home, id, true);
    const read = await resume(whole, id, false);
    expect(windowed.view).toEqual(read.view);
    expect(windowed.request).toEqual(read.request);
  });

  it('reads the rest of the log when a turn needs it: a compaction during the turn covers the whole transcript', async () => {
    const home = await temporaryHome();
    const id = await compactedSession(home);
    const whole = await copyOf(home);
    const compactAgain = async (at: string, window: boolean): Promise<Message[] | undefined> => {
      const handle = await openSessionHandle({ home: at, sessionId: id, window, ...deterministic('run_c') });
      try {
        const result = await handle.compact({
          model: new ScriptedModel([]),
          instructions,
          context: { recentTailTokens: 300 },
        });
        return result.outcome.kind === 'compacted' ? [...handle.messages] : undefined;
      } finally {
        await handle.close();
      }
    };
    expect(await compactAgain(home, true)).toEqual(await compactAgain(whole, false));
    const log = (at: string) => readFile(logFile(at, id));
    expect((await log(home)).equals(await log(whole))).toBe(true);
  });
});
