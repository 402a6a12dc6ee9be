import { InvalidInputError, type Message } from '@forge/core';
import { createRedactor } from '@forge/core/redaction';
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CorruptFileError, SessionNotFoundError } from './errors.js';
import { forgeHomeLayout } from './home.js';
import { createSession, openSession } from './session-open.js';
import { lastSession, listSessions } from './session-list.js';
import { loadTranscript } from './session-read.js';
import { sampleTranscript, useTemporaryHome } from './temporary-home.test-helpers.js';
import { createTraceWriter, traceFile } from './trace-writer.js';

const temporaryHome = useTemporaryHome();
const fixedClock = () => Date.parse('2025-03-01T10:00:00.000Z');

describe('session store', () => {
  it('stores a transcript and gives it back unchanged after reopening', async () => {
    const home = await temporaryHome();
    const writer = await createSession(home, { workspaceRoot: '/work/project', now: fixedClock });
    const transcript = sampleTranscript();
    await writer.recordRunStart({
      runId: 'run_1',
      instructionsHash: 'a'.repeat(64),
      model: { provider: 'scripted', modelId: 'm' },
    });
    await writer.appendMessages(transcript.slice(0, 4), { runId: 'run_1' });
    await writer.recordRunEnd({
      runId: 'run_1',
      status: 'completed',
      steps: 2,
      usage: {
        inputTokens: 120,
        outputTokens: 30,
        cacheReadTokens: undefined,
        cacheWriteTokens: undefined,
        reasoningTokens: 5,
      },
      instructionsHash: 'a'.repeat(64),
    });
    await writer.appendMessages(transcript.slice(4));
    await writer.close();

    const loaded = await loadTranscript(home, writer.id);
    expect(loaded.messages).toEqual(transcript);
    expect(loaded).toMatchObject({
      id: writer.id,
      schemaVersion: 2,
      workspaceRoot: '/work/project',
      warnings: [],
      checkpoint: undefined,
    });
    expect(loaded.runs).toEqual([
      {
        runId: 'run_1',
        startedAt: '2025-03-01T10:00:00.000Z',
        endedAt: '2025-03-01T10:00:00.000Z',
        status: 'completed',
        instructionsHash: 'a'.repeat(64),
        model: { provider: 'scripted', modelId: 'm' },
        steps: 2,
        usage: {
          inputTokens: 120,
          outputTokens: 30,
          cacheReadTokens: undefined,
          cacheWriteTokens: undefined,
          reasoningTokens: 5,
        },
        error: undefined,
        firstMessageIndex: 0,
        checkpointSent: undefined,
      },
    ]);

    const reopened = await openSession(home, writer.id);
    expect(reopened.messages).toEqual(transcript);
    await reopened.appendMessages([{ role: 'assistant', content: [{ type: 'text', text: 'Lint is clean.' }] }]);
    await reopened.close();
    expect((await loadTranscript(home, writer.id)).messages).toHaveLength(transcript.length + 1);
  });

  it('appends one line per message and never rewrites what was written', async () => {
    const home = await temporaryHome();
    const writer = await createSession(home, { workspaceRoot: null });
    await writer.appendMessages(sampleTranscript());
    const before = await readFile(writer.logFile);
    await writer.appendMessages([{ role: 'user', content: 'one more' }]);
    const after = await readFile(writer.logFile);
    await writer.close();
    expect(after.subarray(0, before.length).equals(before)).toBe(true);
    expect(after.toString('utf8').slice(before.length).split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('applies calls in the order they were made, even when not awaited one by one', async () => {
    const home = await temporaryHome();
    const writer = await createSession(home, { workspaceRoot: null });
    const messages: Message[] = Array.from({ length: 25 }, (_, index) => ({
      role: 'user',
      content: `message ${index}`,
    }));
    await Promise.all([
      writer.recordRunStart({ runId: 'run_c' }),
      ...messages.map((message) => writer.appendMessages([message], { runId: 'run_c' })),
      writer.recordRunEnd({
        runId: 'run_c',
        status: 'cancelled',
        usage: {
          inputTokens: undefined,
          outputTokens: undefined,
          cacheReadTokens: undefined,
          cacheWriteTokens: undefined,
          reasoningTokens: undefined,
        },
      }),
    ]);
    await writer.close();
    const loaded = await loadTranscript(home, writer.id);
    expect(loaded.messages).toEqual(messages);
    expect(loaded.runs.map(({ status, firstMessageIndex }) => ({ status, firstMessageIndex }))).toEqual([
      { status: 'cancelled', firstMessageIndex: 0 },
    ]);
  });

  it('bounds and redacts the error of a failed run', async () => {
    const home = await temporaryHome();
    const writer = await createSession(home, {
      workspaceRoot: null,
      redactor: createRedactor({ secrets: ['hunter2-secret'] }),
    });
    await writer.recordRunStart({ runId: 'run_f' });
    await writer.recordRunEnd({
      runId: 'run_f',
      status: 'failed',
      usage: {
        inputTokens: undefined,
        outputTokens: undefined,
        cacheReadTokens: undefined,
        cacheWriteTokens: undefined,
        reasoningTokens: 1.5,
      },
      error: { code: 'auth', message: `key hunter2-secret refused ${'x'.repeat(5000)}`, isRetryable: false },
    });
    await writer.close();
    const [run] = (await loadTranscript(home, writer.id)).runs;
    expect(run?.status).toBe('failed');
    expect(run?.error?.message).toMatch(/^key \[REDACTED:secret\] refused x+…$/);
    expect(run?.error?.message.length).toBe(2000);
    expect(run?.usage?.reasoningTokens).toBeUndefined();
    expect(await readFile(writer.logFile, 'utf8')).not.toContain('hunter2-secret');
  });

  it('redacts secrets in stored messages but keeps provider metadata byte for byte', async () => {
    const home = await temporaryHome();
    const writer = await createSession(home, { workspaceRoot: null });
    const key = `sk-proj-${'Ab3'.repeat(12)}`;
    const blob = `enc-${'sk-'.repeat(2)}${'Z'.repeat(40)}`;
    const stored = await writer.appendMessages([
      { role: 'user', content: `use ${key}` },
      { role: 'assistant', content: [{ type: 'reasoning', text: `saw ${key}`, providerMetadata: { blob } }] },
    ]);
    await writer.close();
    const log = await readFile(writer.logFile, 'utf8');
    expect(log).not.toContain(key);
    expect(log).toContain(blob);
    expect(stored[0]).toEqual({ role: 'user', content: 'use [REDACTED:openai-key]' });
    expect((await loadTranscript(home, writer.id)).messages).toEqual(stored);
  });

  it('refuses an invalid message without writing anything', async () => {
    const home = await temporaryHome();
    const writer = await createSession(home, { workspaceRoot: null });
    const before = await readFile(writer.logFile);
    await expect(writer.appendMessages([{ role: 'user', content: 42 } as unknown as Message])).rejects.toThrow(
      InvalidInputError,
    );
    await writer.close();
    expect((await readFile(writer.logFile)).equals(before)).toBe(true);
  });

  it('makes a checkpoint current only through a valid, written record', async () => {
    const home = await temporaryHome();
    const writer = await createSession(home, { workspaceRoot: null });
    await writer.appendMessages(sampleTranscript());
    const source = {
      summarizedThrough: 3,
      sourceHash: 'a'.repeat(64),
      tailStart: 3,
      tailHash: 'b'.repeat(64),
      messageCount: 5,
    };
    await expect(
      writer.recordCheckpoint({ source: { ...source, summarizedThrough: -1 }, checkpoint: {} }),
    ).rejects.toThrow(/Checkpoint source is not valid/);
    await expect(writer.recordCheckpoint({ source: { ...source, messageCount: 9 }, checkpoint: {} })).rejects.toThrow(
      /covers 9 messages but the transcript had 5/,
    );
    expect(writer.checkpoint).toBeUndefined();
    const stored = await writer.recordCheckpoint({ source, checkpoint: { schemaVersion: 1, digest: ['x'] } });
    expect(writer.checkpoint).toEqual(stored);
    await writer.close();
    expect((await loadTranscript(home, writer.id)).checkpoint).toEqual(stored);
  });

  it('reports an unknown session clearly', async () => {
    const home = await temporaryHome();
    await expect(openSession(home, 'session_missing')).rejects.toThrow(SessionNotFoundError);
    await expect(loadTranscript(home, 'session_missing')).rejects.toThrow(
      /No session session_missing in .*forge sessions list/,
    );
  });

  it('refuses a closed writer', async () => {
    const home = await temporaryHome();
    const writer = await createSession(home, { workspaceRoot: null });
    await writer.close();
    await expect(writer.appendMessages([{ role: 'user', content: 'late' }])).rejects.toThrow(
      /is closed; open it again/,
    );
  });
});

describe('listing sessions', () => {
  it('lists sessions newest first with counts and first user line, and finds the last one per workspace', async () => {
    const home = await temporaryHome();
    let clock = Date.parse('2025-01-01T00:00:00.000Z');
    const now = () => (clock += 1000);
    const first = await createSession(home, { workspaceRoot: '/a', now, id: 'first' });
    await first.appendMessages(sampleTranscript());
    await first.recordRunEnd({
      runId: 'r',
      status: 'completed',
      usage: {
        inputTokens: 1,
        outputTokens: 1,
        cacheReadTokens: undefined,
        cacheWriteTokens: undefined,
        reasoningTokens: undefined,
      },
    });
    const second = await createSession(home, { workspaceRoot: '/b', now, id: 'second' });
    await second.appendMessages([{ role: 'user', content: '\n\n  second session\nmore' }]);
    await Promise.all([first.close(), second.close()]);

    const sessions = await listSessions(home);
    expect(
      sessions.map(({ id, messageCount, firstUserLine, workspaceRoot }) => ({
        id,
        messageCount,
        firstUserLine,
        workspaceRoot,
      })),
    ).toEqual([
      { id: 'second', messageCount: 1, firstUserLine: '  second session', workspaceRoot: '/b' },
      { id: 'first', messageCount: 5, firstUserLine: 'Find the failing test and fix it.', workspaceRoot: '/a' },
    ]);
    expect((await lastSession(home))?.id).toBe('second');
    expect((await lastSession(home, { workspaceRoot: '/a' }))?.id).toBe('first');
    expect(await listSessions(join(home, 'nowhere'))).toEqual([]);
  });

  it('lists an unreadable session with its problem instead of failing, and skips hidden build directories', async () => {
    const home = await temporaryHome();
    const good = await createSession(home, { workspaceRoot: null, id: 'good' });
    await good.close();
    const broken = await createSession(home, { workspaceRoot: null, id: 'broken' });
    await broken.close();
    await writeFile(broken.logFile, 'not a record\n');
    await mkdir(join(home, 'sessions', '.creating-left-over'), { recursive: true });
    const listed = await listSessions(home);
    expect(listed.map(({ id, problem }) => ({ id, problem: problem === undefined ? undefined : 'yes' }))).toEqual([
      { id: 'good', problem: undefined },
      { id: 'broken', problem: 'yes' },
    ]);
    expect((await lastSession(home))?.id).toBe('good');
  });
});

describe('listing damaged sessions (issue 17)', () => {
  /** A closed session of the sample transcript, its log's bytes and the start of each line. */
  async function session(home: string, id: string) {
    const writer = await createSession(home, { workspaceRoot: '/w', id });
    await writer.appendMessages(sampleTranscript());
    await writer.close();
    const bytes = await readFile(writer.logFile);
    const starts = [0, ...[...bytes.entries()].filter(([, byte]) => byte === 10).map(([index]) => index + 1)].slice(
      0,
      -1,
    );
    return { logFile: writer.logFile, bytes, starts };
  }
  const flip = (bytes: Buffer, position: number) => {
    const copy = Buffer.from(bytes);
    copy[position] = (copy[position] as number) ^ 0x01;
    return copy;
  };

  it('marks a session damaged in the middle, at its complete last line or by a lost record, and never offers it as the last one', async () => {
    const home = await temporaryHome();
    await session(home, 'healthy');
    const middle = await session(home, 'middle');
    const last = await session(home, 'last');
    const lost = await session(home, 'lost');
    const torn = await session(home, 'torn');
    await writeFile(middle.logFile, flip(middle.bytes, (middle.starts[3] as number) + 30));
    await writeFile(last.logFile, flip(last.bytes, (last.starts[5] as number) + 30));
    await writeFile(
      lost.logFile,
      Buffer.concat([lost.bytes.subarray(0, lost.starts[2]), lost.bytes.subarray(lost.starts[3])]),
    );
    await writeFile(torn.logFile, torn.bytes.subarray(0, (torn.starts[5] as number) + 30));

    const problems = Object.fromEntries((await listSessions(home)).map((summary) => [summary.id, summary.problem]));
    expect(problems).toEqual({
      healthy: undefined,
      torn: undefined,
      middle: 'damaged: line 4: the checksum does not match the line',
      last: 'damaged: line 6: the checksum does not match the line',
      lost: 'damaged: line 3: expected record number 2, found 3',
    });
    const listed = await listSessions(home);
    expect(listed.find((summary) => summary.id === 'last')).toMatchObject({ workspaceRoot: '/w', messageCount: 4 });
    // Each damaged one is refused on loading too, so the listing never promises what loading will not do.
    for (const id of ['middle', 'last', 'lost'])
      await expect(loadTranscript(home, id)).rejects.toThrow(CorruptFileError);
    expect((await lastSession(home, { workspaceRoot: '/w' }))?.id).toMatch(/^(healthy|torn)$/);
  });

  it('chooses the newest session even when it is damaged, with its problem, and passes over an empty one', async () => {
    const home = await temporaryHome();
    let clock = Date.parse('2025-01-01T00:00:00.000Z');
    const now = () => (clock += 1000);
    for (const id of ['older', 'newer']) {
      const writer = await createSession(home, { workspaceRoot: '/w', now, id });
      await writer.appendMessages(sampleTranscript());
      await writer.close();
    }
    const empty = await createSession(home, { workspaceRoot: '/w', now, id: 'empty' });
    await empty.close();
    const newer = join(forgeHomeLayout(home).sessions, 'newer', 'session.jsonl');
    const bytes = await readFile(newer);
    bytes[bytes.indexOf(10) + 30] = (bytes[bytes.indexOf(10) + 30] as number) ^ 0x01;
    await writeFile(newer, bytes);

    expect((await lastSession(home, { workspaceRoot: '/w' }))?.id).toBe('empty');
    // Resuming an older session instead would hide the damage (issue 29): the caller is told.
    expect(await lastSession(home, { workspaceRoot: '/w', withMessages: true })).toMatchObject({
      id: 'newer',
      problem: 'damaged: line 2: the checksum does not match the line',
    });
    expect((await listSessions(home)).map(({ id, problem }) => [id, problem])).toEqual([
      ['empty', undefined],
      ['newer', 'damaged: line 2: the checksum does not match the line'],
      ['older', undefined],
    ]);
  });
});

describe('file modes and ids', () => {
  let previousUmask = 0;
  beforeEach(() => {
    previousUmask = process.umask(0o000);
  });
  afterEach(() => {
    process.umask(previousUmask);
  });

  it('writes session, lock and trace files 0600 in 0700 directories under a permissive umask', async () => {
    const home = await temporaryHome();
    const writer = await createSession(home, { workspaceRoot: null });
    await writer.appendMessages(sampleTranscript());
    const modes = async (path: string) => ((await stat(path)).mode & 0o777).toString(8);
    expect(await modes(writer.directory)).toBe('700');
    expect(await modes(writer.logFile)).toBe('600');
    expect(await modes(join(writer.directory, 'lock'))).toBe('600');
    await writer.close();
    const trace = await createTraceWriter(home, 'run_modes');
    await trace.close();
    expect(await modes(trace.file)).toBe('600');
    expect(await modes(forgeHomeLayout(home).runs)).toBe('700');
    expect(await readdir(writer.directory)).toEqual(['session.index.json', 'session.jsonl']);
    expect(await modes(join(writer.directory, 'session.index.json'))).toBe('600');
  });

  const hostileIds = ['../x', '', 'a'.repeat(129), 'a/b', 'a\0b', '.', '..', 'a b', 'ä'];

  it.each(hostileIds.map((id) => [JSON.stringify(id), id]))(
    'refuses the id %s everywhere an id enters',
    async (_label, id) => {
      const home = await temporaryHome();
      await expect(createSession(home, { workspaceRoot: null, id })).rejects.toThrow(/Invalid session id/);
      await expect(openSession(home, id)).rejects.toThrow(/Invalid session id/);
      await expect(loadTranscript(home, id)).rejects.toThrow(/Invalid session id/);
      await expect(createTraceWriter(home, id)).rejects.toThrow(/Invalid run id/);
      expect(() => traceFile(home, id)).toThrow(/Invalid run id/);
    },
  );

  it('accepts the longest valid id', async () => {
    const home = await temporaryHome();
    const writer = await createSession(home, { workspaceRoot: null, id: 'a'.repeat(128) });
    await writer.close();
    expect((await loadTranscript(home, 'a'.repeat(128))).id).toBe('a'.repeat(128));
  });
});

describe('stored files that are not regular files (issue 17)', () => {
  it('refuses a FIFO in place of a session log at once, in loading, listing and opening', async () => {
    const home = await temporaryHome();
    const writer = await createSession(home, { workspaceRoot: null, id: 'piped' });
    await writer.close();
    await rm(writer.logFile);
    execFileSync('mkfifo', [writer.logFile]);
    const within = <T>(work: Promise<T>) =>
      Promise.race([
        work,
        new Promise<T>((_resolve, reject) => setTimeout(() => reject(new Error('still waiting after 5 s')), 5000)),
      ]);
    await expect(within(loadTranscript(home, 'piped'))).rejects.toThrow(
      `${writer.logFile}: it is a FIFO, not a regular file.`,
    );
    await expect(within(openSession(home, 'piped'))).rejects.toThrow(CorruptFileError);
    expect((await within(listSessions(home))).map((summary) => summary.problem)).toEqual([
      `unreadable: ${writer.logFile}: it is a FIFO, not a regular file. Forge did not change the file; keep a copy before editing it by hand.`,
    ]);
  });
});
