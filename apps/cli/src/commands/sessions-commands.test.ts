import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { findUnpairedToolCalls, type EventEnvelope, type ModelAdapter } from '@forge/core';
import { ScriptedModel } from '@forge/core/testing';
import {
  createSession,
  loadTranscript,
  openSession,
  type SessionSummary,
  type SessionTranscript,
} from '@forge/persistence';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, temporaryDirectory } from '../test-support/cli-harness.js';

let workspace: Awaited<ReturnType<typeof temporaryDirectory>>;
let forgeHome: Awaited<ReturnType<typeof temporaryDirectory>>;

beforeEach(async () => {
  workspace = await temporaryDirectory('forge-sessions-');
  forgeHome = await temporaryDirectory('forge-sessions-home-');
  await writeFile(path.join(workspace.path, 'README.md'), '# Sessions Fixture\n');
});

afterEach(async () => {
  await workspace.remove();
  await forgeHome.remove();
});

function forge(args: readonly string[], models: Readonly<Record<string, ModelAdapter>> = {}) {
  return runCli(args, { cwd: workspace.path, env: { FORGE_HOME: forgeHome.path }, models });
}

function sessionIdOf(stderr: string): string {
  const id = /^session: (session_[A-Za-z0-9_-]+)$/m.exec(stderr)?.[1];
  if (id === undefined) throw new Error(`no session line in:\n${stderr}`);
  return id;
}

describe('naming a session', () => {
  async function twoSessions(): Promise<[string, string]> {
    const first = await forge(['run', '--model', 'test:a', 'first request'], {
      a: new ScriptedModel([{ text: 'one' }]),
    });
    const second = await forge(['run', '--model', 'test:b', 'second request'], {
      b: new ScriptedModel([{ text: 'two' }]),
    });
    return [sessionIdOf(first.stderr), sessionIdOf(second.stderr)];
  }

  it('takes a unique prefix of the id in --resume, sessions show, compact, checkpoint show and context', async () => {
    const [first] = await twoSessions();
    const prefix = first.slice(0, -3);
    const later = new ScriptedModel([{ text: 'three' }]);
    const resumed = await forge(['run', '--resume', prefix, '--model', 'test:c', 'third request'], { c: later });
    expect(sessionIdOf(resumed.stderr)).toBe(first);
    expect(later.requests[0]?.history.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect((await forge(['sessions', 'show', prefix])).stdout.split('\n')[0]).toBe(`Session ${first}`);
    expect((await forge(['compact', '--dry-run', '--session', prefix])).stdout).toContain(
      `Compaction preview for ${first}`,
    );
    expect((await forge(['checkpoint', 'show', '--session', prefix])).code).toBe(0);
    expect((await forge(['context', '--resume', prefix])).code).toBe(0);
  });

  it('sessions show --last shows the newest session of this workspace', async () => {
    const [, second] = await twoSessions();
    const shown = await forge(['sessions', 'show', '--last']);
    expect(shown.code).toBe(0);
    expect(shown.stdout.split('\n')[0]).toBe(`Session ${second}`);
  });

  it('lists the candidates of an ambiguous prefix and says what to do about an unknown one', async () => {
    await twoSessions();
    for (const args of [
      ['sessions', 'show', 'session_'],
      ['run', '--resume', 'session_', 'hi'],
    ]) {
      const { code, stderr } = await forge(args);
      expect(stderr).toMatch(/'session_' matches 2 sessions: session_\S+, session_\S+; give more of the id\n$/);
      expect(code).toBe(2);
    }
    const unknown = await forge(['sessions', 'show', 'session_nope']);
    expect(unknown.stderr).toBe(
      `forge: error: session 'session_nope': there is no session with this id or prefix in ${forgeHome.path}; run 'forge sessions list' to see the sessions\n`,
    );
    expect(unknown.code).toBe(2);
  });
});

describe('forge run with sessions', () => {
  it('stores each run, lists it, continues it with --resume and shows it', async () => {
    const first = new ScriptedModel([
      { toolCalls: [{ toolName: 'read_file', input: { path: 'README.md' } }] },
      { text: 'The README is titled Sessions Fixture.' },
    ]);
    const started = await forge(['run', '--model', 'test:first', 'What is the README title?'], { first });
    expect(started.code).toBe(0);
    const id = sessionIdOf(started.stderr);
    expect(started.stderr.trimEnd().split('\n').at(-1)).toBe(`session: ${id}`);

    const listed = await forge(['sessions', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/ID\s+UPDATED\s+MSGS\s+WORKSPACE\s+FIRST REQUEST/);
    expect(listed.stdout).toMatch(
      new RegExp(
        `${id}\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d\\s+4\\s+${workspace.path}\\s+What is the README title\\?`,
      ),
    );
    const listedJson = JSON.parse((await forge(['sessions', 'list', '--json'])).stdout) as SessionSummary[];
    expect(
      listedJson.map((session) => [session.id, session.messageCount, session.workspaceRoot, session.firstUserLine]),
    ).toEqual([[id, 4, workspace.path, 'What is the README title?']]);

    const second = new ScriptedModel([{ text: 'You asked about the README title.' }]);
    const resumed = await forge(['run', '--resume', id, '--model', 'test:second', 'What did I ask before?'], {
      second,
    });
    expect(resumed.code).toBe(0);
    expect(sessionIdOf(resumed.stderr)).toBe(id);
    const history = second.requests[0]?.history ?? [];
    expect(history[0]).toEqual({ role: 'user', content: 'What is the README title?' });
    expect(history.at(-1)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'The README is titled Sessions Fixture.' }],
    });
    expect(history).toHaveLength(4);

    const shown = await forge(['sessions', 'show', id]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`Session ${id}`);
    expect(shown.stdout).toContain(`  workspace   ${workspace.path}`);
    expect(shown.stdout).toMatch(/Runs \(2\)\n\s+run_\S+\s+completed\s+scripted:scripted-model · 2 steps · from #0/);
    expect(shown.stdout).toContain('Messages (6)');
    // Messages are numbered from 0, as in the checkpoint view and every other output.
    expect(shown.stdout).toContain('#0 user\n     What is the README title?');
    expect(shown.stdout).toMatch(/#1 assistant\n\s+→ read_file \{"path":"README.md"\} \[call_1_1\]/);
    expect(shown.stdout).toMatch(/#2 tool\n\s+← read_file ok: /);
    expect(shown.stdout).toContain('#5 assistant\n     You asked about the README title.');

    const shownJson = JSON.parse((await forge(['sessions', 'show', id, '--json'])).stdout) as SessionTranscript;
    expect(shownJson.messages).toEqual((await loadTranscript(forgeHome.path, id)).messages);
    expect(shownJson.runs.map((run) => run.status)).toEqual(['completed', 'completed']);
  });

  it('writes a trace per run, and --json carries the session id in every envelope instead of a session line', async () => {
    const result = await forge(['run', '--json', '--model', 'test:main', 'hello'], {
      main: new ScriptedModel([{ text: 'hi' }]),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const envelopes = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as EventEnvelope);
    const sessionIds = new Set(envelopes.map((envelope) => envelope.sessionId));
    expect(sessionIds.size).toBe(1);
    const [id] = [...sessionIds];
    expect(id).toMatch(/^session_/);
    const runId = envelopes[0]?.runId ?? '';
    const trace = await readFile(path.join(forgeHome.path, 'runs', `${runId}.jsonl`), 'utf8');
    expect(
      trace
        .trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as EventEnvelope).event.type),
    ).toEqual(
      envelopes.filter((envelope) => envelope.event.type !== 'model.text.delta').map((envelope) => envelope.event.type),
    );
  });

  it('--last continues the newest session of this workspace', async () => {
    const first = await forge(['run', '--model', 'test:a', 'first request'], {
      a: new ScriptedModel([{ text: 'one' }]),
    });
    const second = await forge(['run', '--model', 'test:b', 'second request'], {
      b: new ScriptedModel([{ text: 'two' }]),
    });
    const later = new ScriptedModel([{ text: 'three' }]);
    const continued = await forge(['run', '--last', '--model', 'test:c', 'third request'], { c: later });
    expect(continued.code).toBe(0);
    expect(sessionIdOf(continued.stderr)).toBe(sessionIdOf(second.stderr));
    expect(sessionIdOf(continued.stderr)).not.toBe(sessionIdOf(first.stderr));
    expect(later.requests[0]?.history.map((message) => message.role)).toEqual(['user', 'assistant']);
  });

  it('--no-session stores nothing', async () => {
    const result = await forge(['run', '--no-session', '--model', 'test:main', 'hello'], {
      main: new ScriptedModel([{ text: 'hi' }]),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(await readdir(forgeHome.path)).toEqual([]);
  });

  it('refuses a session another forge is writing, with the store message and exit code 2', async () => {
    const started = await forge(['run', '--model', 'test:main', 'hello'], {
      main: new ScriptedModel([{ text: 'hi' }]),
    });
    const id = sessionIdOf(started.stderr);
    const holder = await openSession(forgeHome.path, id);
    try {
      const model = new ScriptedModel([{ text: 'never' }]);
      const refused = await forge(['run', '--resume', id, '--model', 'test:main', 'again'], { main: model });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(
        new RegExp(
          `^forge: error: Session ${id} is in use by process ${process.pid} .*only one forge may write a session at a time.*\\n$`,
        ),
      );
      expect(model.requests).toHaveLength(0);
    } finally {
      await holder.close();
    }
    expect((await loadTranscript(forgeHome.path, id)).messages).toHaveLength(2);
  });

  it('repairs a session a crash interrupted before continuing it, and says so', async () => {
    const crashed = await createSession(forgeHome.path, { workspaceRoot: workspace.path });
    await crashed.recordRunStart({ runId: 'run_killed' });
    await crashed.appendMessages(
      [
        { role: 'user', content: 'Run the tests.' },
        {
          role: 'assistant',
          content: [
            { type: 'tool-call', toolCallId: 'call_tests', toolName: 'run_command', input: { argv: ['npm', 'test'] } },
          ],
        },
      ],
      { runId: 'run_killed' },
    );
    await crashed.close();

    const model = new ScriptedModel([{ text: 'Let me run them again.' }]);
    const result = await forge(['run', '--resume', crashed.id, '--model', 'test:main', 'Did they pass?'], {
      main: model,
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      `forge: warning: A run of session ${crashed.id} stopped before a tool call finished (run_command)`,
    );
    expect(result.stderr).toContain('forge: warning: Run run_killed of session');
    const history = model.requests[0]?.history ?? [];
    expect(findUnpairedToolCalls(history)).toEqual([]);
    expect(history.at(-1)).toMatchObject({
      role: 'tool',
      content: [{ toolCallId: 'call_tests', output: { type: 'error-text' } }],
    });
    const stored = await loadTranscript(forgeHome.path, crashed.id);
    expect(stored.runs.map((run) => [run.runId, run.status, run.error?.code])).toEqual([
      ['run_killed', 'failed', 'interrupted'],
      [expect.stringMatching(/^run_/), 'completed', undefined],
    ]);
  });

  it('notes when a resumed session was recorded in another workspace', async () => {
    const elsewhere = await createSession(forgeHome.path, { workspaceRoot: '/somewhere/else' });
    await elsewhere.close();
    const result = await forge(['run', '--resume', elsewhere.id, '--model', 'test:main', 'hi'], {
      main: new ScriptedModel([{ text: 'ok' }]),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      `forge: session ${elsewhere.id} was recorded in /somewhere/else; its tools now work in ${workspace.path}`,
    );
  });

  it.each([
    [
      'an unknown session',
      ['run', '--resume', 'session_nope', 'hi'],
      /^forge: error: --resume 'session_nope': there is no session with this id or prefix in .*; run 'forge sessions list' to see the sessions\n$/,
    ],
    [
      'a hostile id',
      ['run', '--resume', '../../etc/passwd', 'hi'],
      /^forge: error: --resume "..\/..\/etc\/passwd" is not a session id/,
    ],
    [
      'both --resume and --last',
      ['run', '--resume', 'session_a', '--last', 'hi'],
      /^forge: error: --resume and --last both choose a session/,
    ],
    [
      '--no-session with --resume',
      ['run', '--no-session', '--resume', 'session_a', 'hi'],
      /^forge: error: --no-session stores nothing/,
    ],
    [
      '--last without an earlier session',
      ['run', '--last', 'hi'],
      /^forge: error: --last found no earlier session for /,
    ],
    [
      'show of an unknown session',
      ['sessions', 'show', 'session_nope'],
      /^forge: error: session 'session_nope': there is no session with this id or prefix in /,
    ],
    [
      'show of a hostile id',
      ['sessions', 'show', 'a/../../b'],
      /^forge: error: session "a\/..\/..\/b" is not a session id/,
    ],
  ])('exits 2 with one line for %s', async (_name, args, message) => {
    const result = await forge(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('says so when there are no sessions', async () => {
    expect(await forge(['sessions', 'list'])).toEqual({
      code: 0,
      stdout: `No sessions in ${forgeHome.path} yet; 'forge' and 'forge run' start one.\n`,
      stderr: '',
    });
    expect(JSON.parse((await forge(['sessions', 'list', '--json'])).stdout)).toEqual([]);
  });

  it('takes FORGE_HOME from --forge-home over the environment', async () => {
    const other = await temporaryDirectory('forge-other-home-');
    try {
      const result = await forge(['run', '--forge-home', other.path, '--model', 'test:main', 'hello'], {
        main: new ScriptedModel([{ text: 'hi' }]),
      });
      const id = sessionIdOf(result.stderr);
      // Hidden entries are Forge's hints (`.last-…`), not sessions.
      const entries = await readdir(path.join(other.path, 'sessions'));
      expect(entries.filter((name) => !name.startsWith('.'))).toEqual([id]);
      expect(JSON.parse((await forge(['sessions', 'list', '--json'])).stdout)).toEqual([]);
    } finally {
      await other.remove();
    }
  });
});

describe('damaged and oddly named sessions (issue 17)', () => {
  it('marks a session whose complete last record fails its checksum as damaged, and sessions show says where', async () => {
    const writer = await createSession(forgeHome.path, { workspaceRoot: workspace.path, id: 'damaged_one' });
    await writer.appendMessages([
      { role: 'user', content: 'First request' },
      { role: 'assistant', content: [{ type: 'text', text: 'An answer.' }] },
    ]);
    await writer.close();
    const log = await readFile(writer.logFile);
    log[log.length - 30] = (log[log.length - 30] as number) ^ 0x01;
    await writeFile(writer.logFile, log);

    const listed = await forge(['sessions', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/damaged_one .* \?  .*damaged: line 3: the checksum does not match the line\n/);
    const shown = await forge(['sessions', 'show', 'damaged_one']);
    expect(shown.code).toBe(1);
    expect(shown.stderr).toBe(
      `forge: error: ${writer.logFile}, line 3: the checksum does not match the line; it is the last line, but it ends with a newline, so it was written whole and then damaged. Forge did not change the file; keep a copy before editing it by hand.\n`,
    );
    // The newest session is damaged: --last says so rather than resuming an older one or finding none (issue 29).
    const resumed = await forge(['run', '--last', '--model', 'scripted:demo', 'Again']);
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toContain('damaged_one, is damaged: line 3: the checksum does not match the line');
  });

  it('shows a workspace whose name holds a newline as one quoted line', async () => {
    const writer = await createSession(forgeHome.path, { workspaceRoot: '/tmp/two\nlines', id: 'newline_workspace' });
    await writer.close();
    const listed = await forge(['sessions', 'list']);
    expect(listed.stdout.split('\n').filter((line) => line.includes('newline_workspace'))).toEqual([
      expect.stringContaining('"/tmp/two\\nlines"'),
    ]);
  });
});
