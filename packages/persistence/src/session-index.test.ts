import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CorruptFileError } from './errors.js';
import { createSession, openSession } from './session-open.js';
import { listSessions, lastSession } from './session-list.js';
import { currentCheckpointRecord, sessionTotals } from './session-lookups.js';
import { loadTranscript } from './session-read.js';
import { sampleTranscript, useTemporaryHome } from './temporary-home.test-helpers.js';
import { hashMessages } from '@forge/core';

const temporaryHome = useTemporaryHome();
const COST = {
  currency: 'USD' as const,
  freshInput: 0.01,
  cachedInput: 0.002,
  cacheWrite: 0,
  output: 0.03,
  total: 0.042,
};

/** A session with two priced runs, one unpriced run and a checkpoint, closed. */
async function pricedSession(home: string, id: string) {
  const writer = await createSession(home, { workspaceRoot: '/w', id });
  const usage = {
    inputTokens: 1000,
    cacheReadTokens: 600,
    cacheWriteTokens: undefined,
    outputTokens: 50,
    reasoningTokens: undefined,
  };
  for (const [runId, cost] of [
    ['run_a', COST],
    ['run_b', COST],
    ['run_c', undefined],
  ] as const) {
    await writer.recordRunStart({ runId });
    await writer.appendMessages(sampleTranscript(), { runId });
    await writer.recordRunEnd({ runId, status: 'completed', usage, cost });
  }
  const count = writer.messages.length;
  await writer.recordCheckpoint({
    source: {
      summarizedThrough: count,
      sourceHash: hashMessages(writer.messages),
      tailStart: count,
      tailHash: hashMessages([]),
      messageCount: count,
    },
    checkpoint: { strategy: 'codex-import', view: 'what happened' },
  });
  await writer.close();
  return writer;
}

describe('the session index', () => {
  it('keeps running totals of the runs as they end', async () => {
    const home = await temporaryHome();
    await pricedSession(home, 'priced');
    const totals = await sessionTotals(home, 'priced');
    expect(totals).toMatchObject({ runs: 3, inputTokens: 3000, cachedTokens: 1800, outputTokens: 150, legacyRuns: 0 });
    expect(totals.cost?.total).toBeCloseTo(0.084, 10);
  });

  it('is rebuilt from the log with the same results when deleted or corrupted', async () => {
    const home = await temporaryHome();
    const writer = await pricedSession(home, 'rebuilt');
    const indexFile = join(writer.directory, 'session.index.json');
    const listed = await listSessions(home);
    const totals = await sessionTotals(home, 'rebuilt');
    const checkpoint = await currentCheckpointRecord(home, 'rebuilt');
    const original = await readFile(indexFile, 'utf8');
    for (const damage of [
      () => rm(indexFile),
      () => writeFile(indexFile, '{"v":1,'),
      () =>
        writeFile(
          indexFile,
          original.replace(/"messageCount":\d+/, '"messageCount":1').replace(/"logBytes":\d+/, '"logBytes":10'),
        ),
    ]) {
      await damage();
      expect(await listSessions(home)).toEqual(listed);
      expect(await sessionTotals(home, 'rebuilt')).toEqual(totals);
      expect(await currentCheckpointRecord(home, 'rebuilt')).toEqual(checkpoint);
    }
  });

  it('is made for a log an older Forge wrote (no index), which still opens and resumes', async () => {
    const home = await temporaryHome();
    const writer = await pricedSession(home, 'old');
    await rm(join(writer.directory, 'session.index.json'));
    expect((await lastSession(home, { workspaceRoot: '/w' }))?.id).toBe('old');
    const reopened = await openSession(home, 'old');
    expect(reopened.messages).toEqual((await loadTranscript(home, 'old')).messages);
    await reopened.close();
  });

  it('takes in what a later writer appended, and follows a log rewritten in place', async () => {
    const home = await temporaryHome();
    const writer = await pricedSession(home, 'grown');
    const again = await openSession(home, 'grown');
    await again.recordRunStart({ runId: 'run_d' });
    await again.recordRunEnd({
      runId: 'run_d',
      status: 'completed',
      usage: {
        inputTokens: 10,
        cacheReadTokens: undefined,
        cacheWriteTokens: undefined,
        outputTokens: 1,
        reasoningTokens: undefined,
      },
      cost: COST,
    });
    await again.close();
    expect((await sessionTotals(home, 'grown')).runs).toBe(4);
    const bytes = await readFile(writer.logFile);
    bytes[bytes.indexOf(10) + 30] = (bytes[bytes.indexOf(10) + 30] as number) ^ 0x01;
    await writeFile(writer.logFile, bytes);
    await expect(sessionTotals(home, 'grown')).rejects.toThrow(CorruptFileError);
    expect((await listSessions(home))[0]?.problem).toBe('damaged: line 2: the checksum does not match the line');
  });

  it('counts a run an older Forge ended without a cost as legacy, so its cost is looked up in its trace', async () => {
    const home = await temporaryHome();
    const writer = await createSession(home, { workspaceRoot: '/w', id: 'legacy' });
    await writer.recordRunStart({ runId: 'run_old' });
    await writer.close();
    const log = await readFile(writer.logFile, 'utf8');
    const { encodeRecord } = await import('./record-codec.js');
    await writeFile(
      writer.logFile,
      log +
        encodeRecord({
          v: 2,
          seq: 2,
          at: new Date().toISOString(),
          type: 'run.ended',
          runId: 'run_old',
          status: 'completed',
          usage: { inputTokens: 5 },
        }),
    );
    expect(await sessionTotals(home, 'legacy')).toMatchObject({ runs: 1, legacyRuns: 1, inputTokens: 5 });
  });
});

describe("the index's checkpoint window", () => {
  /** Where the line starting at `offset` of the log is, and what it holds. */
  async function recordAt(logFile: string, offset: number): Promise<{ type: string; seq: number; index?: number }> {
    const bytes = await readFile(logFile);
    return JSON.parse(bytes.subarray(offset, bytes.indexOf(10, offset)).toString('utf8'));
  }

  it('starts at the run that added the first kept message, the same whether the index was extended or rebuilt', async () => {
    const home = await temporaryHome();
    const writer = await createSession(home, { workspaceRoot: '/w', id: 'windowed' });
    const usage = {
      inputTokens: 1,
      cacheReadTokens: undefined,
      cacheWriteTokens: undefined,
      outputTokens: 1,
      reasoningTokens: undefined,
    };
    for (const runId of ['run_a', 'run_b', 'run_c']) {
      await writer.recordRunStart({ runId });
      await writer.appendMessages(sampleTranscript(), { runId });
      await writer.recordRunEnd({ runId, status: 'completed', usage });
    }
    await writer.close();
    // Reopened: the checkpoint is appended to an index made before it, keeping run_b's messages verbatim.
    const reopened = await openSession(home, 'windowed');
    const perRun = sampleTranscript().length;
    const count = reopened.messageCount;
    const tailStart = perRun;
    await reopened.recordCheckpoint({
      source: {
        summarizedThrough: tailStart,
        sourceHash: hashMessages(reopened.messages, 0, tailStart),
        tailStart,
        tailHash: hashMessages(reopened.messages, tailStart, count),
        messageCount: count,
      },
      checkpoint: { strategy: 'codex-import', view: 'what happened' },
    });
    await reopened.close();
    const indexFile = join(writer.directory, 'session.index.json');
    const extended = JSON.parse(await readFile(indexFile, 'utf8'));
    await rm(indexFile);
    await sessionTotals(home, 'windowed');
    const rebuilt = JSON.parse(await readFile(indexFile, 'utf8'));
    expect(extended.checkpoint).toEqual(rebuilt.checkpoint);
    const window = rebuilt.checkpoint.window;
    expect(window.messageIndex).toBe(tailStart);
    const first = await recordAt(writer.logFile, window.offset);
    expect(first).toMatchObject({ type: 'run.started', runId: 'run_b', seq: window.seq });
  });
});
