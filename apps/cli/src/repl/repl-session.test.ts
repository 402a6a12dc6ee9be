import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ScriptedModel, type ScriptedStep } from '@forge/core/testing';
import { createSession, listSessions, loadTranscript } from '@forge/persistence';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../main.js';
import { createTestIo, runCli, temporaryDirectory, waitFor } from '../test-support/cli-harness.js';

let workspace: Awaited<ReturnType<typeof temporaryDirectory>>;
let forgeHome: Awaited<ReturnType<typeof temporaryDirectory>>;

beforeEach(async () => {
  workspace = await temporaryDirectory('forge-repl-session-');
  forgeHome = await temporaryDirectory('forge-repl-session-home-');
  await writeFile(path.join(workspace.path, 'AGENTS.md'), 'Answer briefly.\n');
});

afterEach(async () => {
  await workspace.remove();
  await forgeHome.remove();
});

/** Starts the REPL on injected streams with a temporary FORGE_HOME. */
function startRepl(steps: readonly ScriptedStep[], args: readonly string[] = []) {
  const model = new ScriptedModel(steps);
  const test = createTestIo({ cwd: workspace.path, env: { FORGE_HOME: forgeHome.path }, models: { main: model } });
  const exited = main(['node', 'forge', '--model', 'test:main', ...args], test.io);
  return { model, test, exited, type: (text: string) => test.stdin.write(text) };
}

function bannerSessionId(output: string): string {
  const id = /^(?:Started|Resumed) session (session_[A-Za-z0-9_-]+)/m.exec(output)?.[1];
  if (id === undefined) throw new Error(`no session in the banner:\n${output}`);
  return id;
}

describe('the REPL keeps its conversation in a session', () => {
  it('persists every turn, and a restarted REPL resumes it with its history and the current instructions', async () => {
    const first = startRepl([{ text: 'Noted: tabs.' }]);
    first.type('Use tabs.\n/exit\n');
    expect(await first.exited).toBe(0);
    const id = bannerSessionId(first.test.stdout.text);
    expect((await loadTranscript(forgeHome.path, id)).messages).toEqual([
      { role: 'user', content: 'Use tabs.' },
      { role: 'assistant', content: [{ type: 'text', text: 'Noted: tabs.' }] },
    ]);

    await writeFile(path.join(workspace.path, 'AGENTS.md'), 'Answer in French.\n');
    const second = startRepl([{ text: 'Des tabulations.' }], ['--resume', id]);
    second.type('What did I ask for?\n/exit\n');
    expect(await second.exited).toBe(0);
    expect(second.test.stdout.text).toContain(`Resumed session ${id} (2 messages)`);
    const request = second.model.requests[0];
    expect(request?.history).toEqual([
      { role: 'user', content: 'Use tabs.' },
      { role: 'assistant', content: [{ type: 'text', text: 'Noted: tabs.' }] },
    ]);
    expect(request?.instructions).toContain('Answer in French.');
    expect(request?.instructions).not.toContain('Answer briefly.');

    const third = startRepl([{ text: 'ok' }], ['--last']);
    third.type('/exit\n');
    expect(await third.exited).toBe(0);
    expect(bannerSessionId(third.test.stdout.text)).toBe(id);
    expect((await loadTranscript(forgeHome.path, id)).messages).toHaveLength(4);
  });

  it('switches sessions with /resume and /new, and lists them with /sessions', async () => {
    const earlier = await runCli(['run', '--model', 'test:old', 'Remember the number 7.'], {
      cwd: workspace.path,
      env: { FORGE_HOME: forgeHome.path },
      models: { old: new ScriptedModel([{ text: 'Remembered.' }]) },
    });
    const earlierId = /session: (\S+)/.exec(earlier.stderr)?.[1] ?? '';

    const repl = startRepl([{ text: 'It was 7.' }, { text: 'Fresh start.' }]);
    await waitFor(
      () => repl.test.stdout.text,
      (text) => text.includes('Type a request'),
    );
    const startedIn = bannerSessionId(repl.test.stdout.text);
    repl.type(
      `/sessions\n/resume ${earlierId}\nWhich number?\n/resume ${earlierId}\n/new\nHello again.\n/resume session_missing\n/exit\n`,
    );
    expect(await repl.exited).toBe(0);
    const output = repl.test.stdout.text;

    expect(output).toMatch(new RegExp(`\\* ${startedIn}\\s`));
    expect(output).toMatch(new RegExp(`  ${earlierId}\\s.*Remember the number 7\\.`));
    expect(output).toContain(`Resumed session ${earlierId} (2 messages)`);
    expect(output).toContain(`Already in session ${earlierId}.`);
    expect(output).toMatch(/Started session session_\S+\n/);
    expect(output).toMatch(
      /error: \/resume 'session_missing': there is no session with this id or prefix in .*; \/sessions lists them\n/,
    );
    expect(output).toContain('So far:\n  you: Remember the number 7.\n  forge: Remembered.\n');
    expect(repl.model.requests[0]?.history).toEqual([
      { role: 'user', content: 'Remember the number 7.' },
      { role: 'assistant', content: [{ type: 'text', text: 'Remembered.' }] },
    ]);
    expect(repl.model.requests[1]?.history).toEqual([]);

    expect((await loadTranscript(forgeHome.path, earlierId)).messages).toHaveLength(4);
    const sessions = await listSessions(forgeHome.path);
    expect(sessions.map((session) => session.id)).not.toContain(startedIn);
    expect(sessions.map((session) => session.messageCount).sort()).toEqual([2, 4]);
  });

  it('holds the session lock while it runs: another forge on the same session exits 2', async () => {
    const repl = startRepl([{ text: 'first' }]);
    repl.type('hello\n');
    await waitFor(
      () => repl.test.stdout.text,
      (text) => text.includes('first'),
    );
    const id = bannerSessionId(repl.test.stdout.text);

    const run = await runCli(['run', '--resume', id, 'hi'], {
      cwd: workspace.path,
      env: { FORGE_HOME: forgeHome.path },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      new RegExp(
        `^forge: error: Session ${id} is in use by process ${process.pid} .*only one forge may write a session at a time`,
      ),
    );
    const second = createTestIo({ cwd: workspace.path, env: { FORGE_HOME: forgeHome.path } });
    expect(await main(['node', 'forge', '--resume', id], second.io)).toBe(2);
    expect(second.stdout.text).toBe('');

    repl.type('/exit\n');
    expect(await repl.exited).toBe(0);
    const after = await runCli(['run', '--resume', id, 'hi'], {
      cwd: workspace.path,
      env: { FORGE_HOME: forgeHome.path },
    });
    expect(after.code).toBe(0);
  });

  it('previews compaction with /compact --dry-run without writing, and /compact says when there is nothing to compact', async () => {
    const repl = startRepl([{ text: 'ok' }]);
    repl.type('hello\n');
    await waitFor(
      () => repl.test.stdout.text,
      (text) => text.includes('ok\n'),
    );
    const id = bannerSessionId(repl.test.stdout.text);
    const logFile = path.join(forgeHome.path, 'sessions', id, 'session.jsonl');
    const before = await readFile(logFile);
    repl.type('/compact --dry-run\n/compact\n/exit\n');
    expect(await repl.exited).toBe(0);
    const output = repl.test.stdout.text;
    expect(output).toContain(`Compaction preview for ${id} (dry run: no model call, nothing written)`);
    expect(output).toMatch(/kept verbatim\s+messages \[0, 2\) \(2 messages\)/);
    expect(output).toMatch(/next request\s+~[\d,]+ tokens: nothing to compact/);
    expect(output).toContain(
      `Nothing compacted in session ${id}: every completed turn fits the recent tail; there is nothing older to summarize.`,
    );
    expect(output).toContain('The full transcript is kept');
    expect((await readFile(logFile)).equals(before)).toBe(true);
    expect(repl.model.requests).toHaveLength(1);
  });

  it('/compact turns older turns into a checkpoint without a model call, /checkpoint shows it, and the next turn sends it', async () => {
    const messages = Array.from({ length: 40 }, (_, turn) => [
      { role: 'user' as const, content: `Request ${turn}: ${'please look at this parser code '.repeat(60)}` },
      {
        role: 'assistant' as const,
        content: [{ type: 'text' as const, text: `Answer ${turn}: ${'done '.repeat(200)}` }],
      },
    ]).flat();
    const writer = await createSession(forgeHome.path, { workspaceRoot: workspace.path });
    await writer.appendMessages(messages);
    await writer.close();

    const repl = startRepl([{ text: 'Carrying on.' }], ['--resume', writer.id]);
    repl.type('/compact the parser work\n/checkpoint\nnext step please\n');
    await waitFor(
      () => repl.test.stdout.text,
      (text) => text.includes('Carrying on.'),
    );
    repl.type('/exit\n');
    expect(await repl.exited).toBe(0);
    const output = repl.test.stdout.text;
    expect(output).toMatch(
      new RegExp(
        `Compacted session ${writer.id} with forge-state: messages \\[0, \\d+\\) are now checkpoint cp_[0-9a-f]{16}`,
      ),
    );
    expect(output).toMatch(/Checkpoint cp_[0-9a-f]{16} of session/);
    expect(output).toMatch(
      /use\s+sent by the next turn \(mode compact\); messages \[\d+, 80\) are sent verbatim after it/,
    );
    expect(output).toContain('[SESSION_CHECKPOINT v1]');
    expect(output).toContain('The full transcript is kept');
    const stored = await loadTranscript(forgeHome.path, writer.id);
    expect(stored.messages.slice(0, 80)).toEqual(messages);
    expect(stored.checkpoint?.checkpoint).toMatchObject({ strategy: 'forge-state' });
    expect(repl.model.requests[0]?.checkpoint).toContain('[SESSION_CHECKPOINT v1]');
    expect(repl.model.requests[0]?.history.length).toBeLessThan(80);
  });

  it('/context measures the next request of the live session: its model, window, mode, history and tools', async () => {
    const repl = startRepl([{ text: 'Tabs it is.' }]);
    repl.type('Use tabs.\n');
    await waitFor(
      () => repl.test.stdout.text,
      (text) => text.includes('Tabs it is.'),
    );
    const before = repl.test.stdout.text.length;
    repl.type('/mode off\n/context\n/exit\n');
    expect(await repl.exited).toBe(0);
    const report = repl.test.stdout.text.slice(before);
    expect(report).toContain(`Context for ${repl.model.provider}:${repl.model.modelId}`);
    expect(report).toMatch(/Window +[\d,]+ tokens.* — from the capability table/);
    expect(report).toMatch(/Mode +off — fits \(mode off: no warnings\)/);
    expect(report).toMatch(/Instructions +[1-9][\d,]* /);
    expect(report).toMatch(/History +[1-9][\d,]* .*2 messages verbatim/);
    expect(report).toMatch(/Tool schemas +[1-9][\d,]* .*5 tools/);
    expect(report).toMatch(/Available input +[1-9]/);
    expect(report).toMatch(/Session +2 messages: \[0, 2\) verbatim, none left out/);
    expect(report).not.toContain('\u001b[');
    expect(repl.model.requests).toHaveLength(1);
  });

  it('leaves no session behind when nothing was asked', async () => {
    const repl = startRepl([]);
    repl.type('/help\n/exit\n');
    expect(await repl.exited).toBe(0);
    expect(repl.test.stdout.text).toMatch(/^Started session session_\S+\nType a request/m);
    expect(await listSessions(forgeHome.path)).toEqual([]);
  });
});
