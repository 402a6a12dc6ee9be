import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CodexAppServer, CodexThreadOptions } from '../app-server/client.js';
import { CodexProtocolError } from '../errors.js';
import type { SessionRun, SessionTranscript } from '@forge/persistence';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseCodexThread } from './thread-choice.js';

/*
 * Which thread the next Codex turn of a session goes to, for each state a session can be in. The
 * App Server is reduced to the three things the choice asks of it (its version, the threads it has
 * loaded, thread/resume); the end-to-end behaviour is tested on the real binary in
 * apps/cli/src/engines/codex-engine.test.ts.
 */

let directory: string;
let rollout: string;
beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'forge-thread-choice-'));
  rollout = path.join(directory, 'rollout.jsonl');
  await writeFile(rollout, '{}\n');
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

const settings: CodexThreadOptions = { cwd: '/work' };

function run(overrides: Partial<SessionRun> = {}): SessionRun {
  return {
    runId: `run_${Math.random().toString(36).slice(2)}`,
    startedAt: undefined,
    endedAt: undefined,
    status: 'completed',
    instructionsHash: 'hash-1',
    model: { provider: 'codex', modelId: 'gpt-5.5' },
    steps: 1,
    usage: undefined,
    error: undefined,
    engine: { name: 'codex', version: '0.169.0', thread: { id: 'thread-1', model: 'gpt-5.5', rolloutPath: rollout } },
    firstMessageIndex: 0,
    checkpointSent: undefined,
    projectedToolCalls: undefined,
    ...overrides,
  };
}

function session(runs: readonly SessionRun[], messages = runs.length * 2): SessionTranscript {
  return {
    id: 'session_1',
    schemaVersion: 2,
    createdAt: '',
    updatedAt: '',
    workspaceRoot: '/work',
    messages: Array.from({ length: messages }, () => ({ role: 'user' as const, content: 'x' })),
    runs,
    checkpoint: undefined,
    migratedFrom: undefined,
    warnings: [],
  };
}

function server(
  options: {
    readonly version?: string;
    readonly loaded?: boolean;
    readonly resume?: () => Promise<{ model: string }>;
  } = {},
): CodexAppServer {
  const fake = {
    info: { version: options.version ?? '0.169.0' },
    hasLoadedThread: () => options.loaded ?? false,
    resumeThread: async (threadId: string) => ({
      threadId,
      rolloutPath: rollout,
      cwd: '/work',
      modelProvider: 'loopback',
      ...(await (options.resume ?? (async () => ({ model: 'gpt-5.5' })))()),
    }),
  };
  return fake as unknown as CodexAppServer;
}

const choose = (
  transcript: SessionTranscript,
  codex: CodexAppServer,
  extra: { settings?: CodexThreadOptions; instructionsHash?: string } = {},
) =>
  chooseCodexThread({
    session: transcript,
    server: codex,
    settings: extra.settings ?? settings,
    instructionsHash: extra.instructionsHash ?? 'hash-1',
  });

describe('chooseCodexThread', () => {
  it('starts the first thread of an empty session without calling it a fallback', async () => {
    expect(await choose(session([], 0), server())).toEqual({ kind: 'new' });
  });

  it('continues a thread this server has loaded, and resumes it on a new server', async () => {
    expect(await choose(session([run()]), server({ loaded: true }))).toMatchObject({
      kind: 'continue',
      how: 'continued',
      threadId: 'thread-1',
    });
    expect(await choose(session([run()]), server())).toMatchObject({
      kind: 'continue',
      how: 'resumed',
      threadId: 'thread-1',
      rolloutPath: rollout,
    });
  });

  it('ignores the run being chosen for, whose start is already recorded', async () => {
    const current = run({ runId: 'run_now', status: undefined, engine: undefined });
    expect(
      await chooseCodexThread({
        session: session([run(), current]),
        server: server({ loaded: true }),
        settings,
        instructionsHash: 'hash-1',
        currentRunId: 'run_now',
      }),
    ).toMatchObject({
      kind: 'continue',
    });
  });

  it('falls back, naming why, when the thread cannot or must not be continued', async () => {
    const reason = async (transcript: SessionTranscript, codex: CodexAppServer, extra = {}) => {
      const choice = await choose(transcript, codex, extra);
      return choice.kind === 'new' ? choice.fallback?.reason : 'continued';
    };
    expect(await reason(session([run()]), server({ version: '0.170.0', loaded: true }))).toBe('codex-version-changed');
    expect(
      await reason(session([run()]), server({ loaded: true }), { settings: { ...settings, model: 'gpt-6' } }),
    ).toBe('model-changed');
    expect(await reason(session([run()]), server({ resume: async () => ({ model: 'gpt-6' }) }))).toBe('model-changed');
    expect(await reason(session([run()]), server({ loaded: true }), { instructionsHash: 'hash-2' })).toBe(
      'instructions-changed',
    );
    expect(
      await reason(
        session([run(), run({ model: { provider: 'scripted', modelId: 'demo' }, engine: undefined })]),
        server({ loaded: true }),
      ),
    ).toBe('engine-switched');
    expect(
      await reason(session([run({ model: { provider: 'openai', modelId: 'gpt-5.1' }, engine: undefined })]), server()),
    ).toBe('engine-switched');
    expect(await reason(session([], 4), server())).toBe('no-thread-recorded');
    const gone = run({
      engine: {
        name: 'codex',
        version: '0.169.0',
        thread: { id: 'thread-1', model: 'gpt-5.5', rolloutPath: path.join(directory, 'gone.jsonl') },
      },
    });
    expect(await reason(session([gone]), server())).toBe('rollout-missing');
    const refusing = server({
      resume: async () => {
        throw new CodexProtocolError({ method: 'thread/resume', message: 'no rollout found for thread id thread-1' });
      },
    });
    expect(await reason(session([run()]), refusing)).toBe('resume-failed');
  });
});
