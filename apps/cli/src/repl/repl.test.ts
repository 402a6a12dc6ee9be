import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { findUnpairedToolCalls, type Message } from '@forge/core';
import { ScriptedModel, type ScriptedStep } from '@forge/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../main.js';
import { createTestIo, temporaryDirectory, waitFor, type TestIo } from '../test-support/cli-harness.js';

let workspace: Awaited<ReturnType<typeof temporaryDirectory>>;
let forgeHome: Awaited<ReturnType<typeof temporaryDirectory>>;

beforeEach(async () => {
  workspace = await temporaryDirectory('forge-repl-');
  forgeHome = await temporaryDirectory('forge-repl-home-');
  await writeFile(path.join(workspace.path, 'README.md'), '# Repl Fixture\n');
});

afterEach(async () => {
  await workspace.remove();
  await forgeHome.remove();
});

/** Starts `forge --model test:main` on injected streams; `main` resolves when the REPL exits. */
function startRepl(
  steps: readonly ScriptedStep[],
  options: { readonly env?: Record<string, string>; readonly args?: readonly string[] } = {},
) {
  const model = new ScriptedModel(steps);
  const test = createTestIo({
    cwd: workspace.path,
    env: { FORGE_HOME: forgeHome.path, ...options.env },
    models: { main: model },
  });
  const exited = main(['node', 'forge', '--model', 'test:main', ...(options.args ?? [])], test.io);
  return { model, test, exited, type: (text: string) => test.stdin.write(text) };
}

const noteEdit = (file: string): ScriptedStep => ({
  toolCalls: [{ toolName: 'edit_file', input: { path: file, mode: 'create', content: 'note\n' } }],
});

const longCommand: ScriptedStep = {
  toolCalls: [{ toolName: 'run_command', input: { argv: [process.execPath, '-e', 'setTimeout(() => {}, 30000)'] } }],
};

function toolResults(messages: readonly Message[]): string[] {
  return messages.flatMap((message) =>
    message.role === 'tool'
      ? message.content.map((part) => `${part.toolName}: ${part.output.type === 'json' ? '' : part.output.value}`)
      : [],
  );
}

const stdoutOf = (test: TestIo) => () => test.stdout.text;

describe('the REPL', () => {
  it('streams a turn, carries the conversation into the next turn, and exits on /exit', async () => {
    const repl = startRepl([{ text: 'Hello from the model.', textChunks: 4 }, { text: 'Second answer.' }]);
    repl.type('first question\nsecond question\n/exit\n');
    expect(await repl.exited).toBe(0);
    const output = repl.test.stdout.text;
    expect(output).toContain(`· test:main · approval ask · ${workspace.path}\n`);
    expect(output).toContain('› first question\nHello from the model.\n› second question\nSecond answer.\n› /exit\n');
    expect(output).not.toContain('\u001b');
    const second = repl.model.requests[1];
    expect(second?.currentRequest.content).toBe('second question');
    expect(second?.history).toEqual([
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: [{ type: 'text', text: 'Hello from the model.' }] },
    ]);
  });

  it('lists its commands on /help and names an unknown command', async () => {
    const repl = startRepl([]);
    repl.type('/help\n/nope\n/exit\n');
    expect(await repl.exited).toBe(0);
    expect(repl.test.stdout.text).toMatch(/\/help\s+show commands and keys\n/);
    expect(repl.test.stdout.text).toMatch(/\/resume <id>\s+continue a stored session/);
    expect(repl.test.stdout.text).toMatch(/\/exit\s+leave the REPL/);
    expect(repl.test.stdout.text).toContain('Unknown command /nope. Type /help to see the commands.');
    expect(repl.model.requests).toHaveLength(0);
  });

  it('exits when the input ends (Ctrl-D)', async () => {
    const repl = startRepl([{ text: 'ok' }]);
    repl.type('hello\n');
    repl.test.stdin.end();
    expect(await repl.exited).toBe(0);
    expect(repl.model.requests).toHaveLength(1);
  });

  it('joins lines ending in a backslash into one input', async () => {
    const repl = startRepl([{ text: 'ok' }]);
    repl.type('first line\\\nsecond line\n/exit\n');
    expect(await repl.exited).toBe(0);
    expect(repl.model.requests[0]?.currentRequest.content).toBe('first line\nsecond line');
    expect(repl.test.stdout.text).toContain('› first line\\\n… second line\n');
  });

  it('runs a confirm-level call the user accepts once', async () => {
    const repl = startRepl([noteEdit('accepted.txt'), { text: 'Wrote it.' }]);
    repl.type('write a note\ny\n/exit\n');
    expect(await repl.exited).toBe(0);
    expect(readFileSync(path.join(workspace.path, 'accepted.txt'), 'utf8')).toBe('note\n');
    expect(repl.test.stdout.text).toContain(
      'Allow write? edit_file create accepted.txt\n--- /dev/null\n+++ b/accepted.txt\n@@ -0,0 +1,1 @@\n+note\n[y] once  [s] this session  [n] deny (+ optional feedback) › y\n',
    );
    expect(repl.test.stdout.text).toContain('Wrote it.');
  });

  it('passes the feedback of a denial to the model and runs nothing', async () => {
    const repl = startRepl([noteEdit('denied.txt'), { text: 'Understood.' }]);
    repl.type('write a note\nn put it in NOTES.md instead\n/exit\n');
    expect(await repl.exited).toBe(0);
    expect(existsSync(path.join(workspace.path, 'denied.txt'))).toBe(false);
    expect(toolResults(repl.model.requests[1]?.continuation ?? [])).toEqual([
      'edit_file: Not run: denied — the user said: put it in NOTES.md instead.',
    ]);
    expect(repl.test.stdout.text).toContain('\n  denied: the user said: put it in NOTES.md instead\n');
  });

  it('asks again after an unclear answer', async () => {
    const repl = startRepl([noteEdit('asked-twice.txt'), { text: 'ok' }]);
    repl.type('write a note\nyes but carefully\ny\n/exit\n');
    expect(await repl.exited).toBe(0);
    expect(repl.test.stdout.text).toContain('Answer y (once), s (this session) or n (deny;');
    expect(existsSync(path.join(workspace.path, 'asked-twice.txt'))).toBe(true);
  });

  it('does not ask again for a tool allowed for the session', async () => {
    const repl = startRepl([noteEdit('one.txt'), { text: 'one' }, noteEdit('two.txt'), { text: 'two' }]);
    repl.type('first\ns\nsecond\n/exit\n');
    expect(await repl.exited).toBe(0);
    expect(repl.test.stdout.text.match(/Allow write\?/g)).toHaveLength(1);
    expect(existsSync(path.join(workspace.path, 'two.txt'))).toBe(true);
  });

  it('cancels a long tool call on Ctrl-C, pairs the call with its result, and keeps going', async () => {
    const repl = startRepl([longCommand, { text: 'Still here.' }]);
    repl.type('run the slow thing\ny\n');
    await waitFor(stdoutOf(repl.test), (text) => text.includes('• run_command'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const interruptedAt = Date.now();
    repl.test.interrupt();
    await waitFor(stdoutOf(repl.test), (text) => text.includes('Cancelled.'));
    expect(Date.now() - interruptedAt).toBeLessThan(5000);
    repl.type('are you there?\n/exit\n');
    expect(await repl.exited).toBe(0);
    const history = repl.model.requests[1]?.history ?? [];
    expect(findUnpairedToolCalls(history)).toEqual([]);
    expect(toolResults(history)).toEqual([
      'run_command: Stopped: the run was cancelled while this tool was running. What it started may still be running, or may have done part of its work.',
    ]);
    expect(repl.test.stdout.text).toContain('Still here.');
  });

  it('cancels the run when Ctrl-C interrupts an approval prompt', async () => {
    const repl = startRepl([noteEdit('never.txt'), { text: 'next turn' }]);
    repl.type('write a note\n');
    await waitFor(stdoutOf(repl.test), (text) => text.includes('Allow write?'));
    repl.test.interrupt();
    await waitFor(stdoutOf(repl.test), (text) => text.includes('Cancelled.'));
    repl.type('again\n/exit\n');
    expect(await repl.exited).toBe(0);
    expect(existsSync(path.join(workspace.path, 'never.txt'))).toBe(false);
    expect(findUnpairedToolCalls(repl.model.requests[1]?.history ?? [])).toEqual([]);
  });

  it('warns on Ctrl-C at the prompt and exits on the second', async () => {
    const repl = startRepl([]);
    await waitFor(stdoutOf(repl.test), (text) => text.includes('Type a request'));
    repl.test.interrupt();
    expect(repl.test.stdout.text).toContain('(press Ctrl-C again to exit)');
    repl.test.interrupt();
    expect(await repl.exited).toBe(0);
  });

  it('a line entered between two Ctrl-C disarms the exit', async () => {
    const repl = startRepl([]);
    await waitFor(stdoutOf(repl.test), (text) => text.includes('Type a request'));
    repl.test.interrupt();
    repl.type('/help\n');
    await waitFor(stdoutOf(repl.test), (text) => text.includes('› /help'));
    repl.test.interrupt();
    expect(repl.test.stdout.text.match(/press Ctrl-C again/g)).toHaveLength(2);
    repl.type('/exit\n');
    expect(await repl.exited).toBe(0);
  });

  it('Ctrl-C during a continued input discards it', async () => {
    const repl = startRepl([{ text: 'ok' }]);
    repl.type('half an idea\\\n');
    await waitFor(stdoutOf(repl.test), (text) => text.includes('› half an idea\\'));
    repl.test.interrupt();
    repl.type('fresh start\n/exit\n');
    expect(await repl.exited).toBe(0);
    expect(repl.test.stdout.text).toContain('(input discarded)');
    expect(repl.model.requests[0]?.currentRequest.content).toBe('fresh start');
  });

  it('writes no escape codes to a terminal when NO_COLOR is set, and colours it otherwise', async () => {
    for (const [env, coloured] of [
      [{ NO_COLOR: '1' }, false],
      [{}, true],
    ] as const) {
      const model = new ScriptedModel([]);
      const test = createTestIo({
        cwd: workspace.path,
        env: { FORGE_HOME: forgeHome.path, ...env },
        models: { main: model },
      });
      test.stdout.isTTY = true;
      const exited = main(['node', 'forge', '--model', 'test:main'], test.io);
      test.stdin.write('/exit\n');
      expect(await exited).toBe(0);
      expect(test.stdout.text.includes('\u001b[')).toBe(coloured);
    }
  });

  it('reports a usage error before starting, with exit code 2', async () => {
    const test = createTestIo({ cwd: workspace.path });
    const code = await main(['node', 'forge', '--model', 'acme:x'], test.io);
    expect(code).toBe(2);
    expect(test.stdout.text).toBe('');
    expect(test.stderr.text).toBe(
      'forge: error: unknown model provider "acme" in "acme:x"; known providers: scripted, openai, deepseek, anthropic, compatible\n',
    );
  });
});
