import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ScriptedModel, type ScriptedStep } from '@forge/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../main.js';
import { createTestIo, temporaryDirectory, waitFor } from '../test-support/cli-harness.js';

/*
 * The REPL's footer, /model, /mode, /permissions and the edit diff in approval prompts, driven in
 * process. A terminal is simulated by marking stdout as a TTY (input stays a plain stream).
 */

let workspace: Awaited<ReturnType<typeof temporaryDirectory>>;
let forgeHome: Awaited<ReturnType<typeof temporaryDirectory>>;

beforeEach(async () => {
  workspace = await temporaryDirectory('forge-repl-controls-');
  forgeHome = await temporaryDirectory('forge-repl-controls-home-');
  await writeFile(path.join(workspace.path, 'notes.txt'), 'alpha\nbeta\ngamma\n');
});

afterEach(async () => {
  await workspace.remove();
  await forgeHome.remove();
});

function startRepl(
  models: Record<string, readonly ScriptedStep[]>,
  options: {
    readonly terminal?: boolean;
    readonly env?: Record<string, string>;
    readonly args?: readonly string[];
  } = {},
) {
  const scripted = Object.fromEntries(
    Object.entries(models).map(([name, steps]) => [
      name,
      new ScriptedModel(steps, { provider: 'test', modelId: name }),
    ]),
  );
  const test = createTestIo({
    cwd: workspace.path,
    env: { FORGE_HOME: forgeHome.path, NO_COLOR: '1', ...options.env },
    models: scripted,
  });
  if (options.terminal === true) test.stdout.isTTY = true;
  const exited = main(['node', 'forge', '--model', 'test:main', ...(options.args ?? [])], test.io);
  return {
    models: scripted,
    test,
    exited,
    output: () => test.stdout.text,
    type: (text: string) => test.stdin.write(text),
  };
}

const edit = (input: Record<string, unknown>): ScriptedStep => ({
  toolCalls: [{ toolName: 'edit_file', input: { path: 'notes.txt', ...input } }],
});

describe('the REPL footer', () => {
  it('shows model, mode and the estimated context use of the latest request on a terminal', async () => {
    const repl = startRepl({ main: [{ text: 'Hi.' }] }, { terminal: true });
    await waitFor(repl.output, (text) => text.includes('Type a request'));
    expect(repl.output()).toContain('─ test:main · mode compact · context –\n');
    repl.type('hello\n');
    await waitFor(repl.output, (text) => text.includes('Hi.'));
    repl.type('/exit\n');
    expect(await repl.exited).toBe(0);
    const pattern = /─ test:main · mode compact · context ~([\d.]+)k \/ (\d+k) \((\d+)%\)\n/;
    expect(repl.output()).toMatch(pattern);
    const footer = pattern.exec(repl.output());
    expect(Number(footer?.[1])).toBeGreaterThan(0);
    expect(footer?.[2]).toBe('120k');
  });

  it('is left out of piped output, which stays a plain transcript', async () => {
    const repl = startRepl({ main: [{ text: 'Hi.' }] });
    repl.type('hello\n/exit\n');
    expect(await repl.exited).toBe(0);
    expect(repl.output()).not.toContain('─ ');
    expect(repl.output()).not.toContain('context');
  });
});

describe('/model and /mode', () => {
  it('show the current choice and switch for the next turn; a bad model keeps the current one', async () => {
    const repl = startRepl({ main: [{ text: 'from main' }], other: [{ text: 'from other' }] }, { terminal: true });
    repl.type(
      '/model\n/model acme:x\n/model gpt-5\n/model openai:gpt-5\n/model test:other\n/mode\n/mode sometimes\n/mode off\nhello\n',
    );
    await waitFor(repl.output, (text) => text.includes('from other'));
    repl.type('/exit\n');
    expect(await repl.exited).toBe(0);
    const output = repl.output();
    expect(output).toContain('Model: test:main. Switch with /model provider:id');
    expect(output).toContain(
      'error: unknown model provider "acme" in "acme:x"; known providers: test, scripted, openai, deepseek, anthropic, compatible (still test:main)',
    );
    expect(output).toContain(
      'error: model "gpt-5" is not of the form provider:model; for example /model scripted:demo or /model openai:gpt-5 (still test:main)',
    );
    expect(output).toContain(
      'error: OPENAI_API_KEY is not set; export it or choose another model with /model (still test:main)',
    );
    expect(output).not.toContain('--model');
    expect(output).toContain('Model: test:other from the next turn.');
    expect(output).toContain('Context mode: compact. Switch with /mode off|warn|shadow|compact.');
    expect(output).toContain('/mode: "sometimes" is not a context mode; use one of off, warn, shadow, compact.');
    expect(output).toContain('Context mode: off from the next turn.');
    expect(output).toMatch(/─ test:other · mode off · context ~[\d.]+k \/ 120k/);
    expect(repl.models['main']?.requests).toHaveLength(0);
    expect(repl.models['other']?.requests).toHaveLength(1);
  });

  it('starts in the mode --context-mode names', async () => {
    const repl = startRepl({ main: [] }, { args: ['--context-mode', 'shadow'] });
    repl.type('/mode\n/exit\n');
    expect(await repl.exited).toBe(0);
    expect(repl.output()).toContain('Context mode: shadow.');
  });
});

describe('/permissions', () => {
  it('lists the session grants and revokes one, so the tool asks again', async () => {
    const repl = startRepl({
      main: [
        edit({ mode: 'create', path: 'one.txt', content: '1\n' }),
        { text: 'one' },
        edit({ mode: 'create', path: 'two.txt', content: '2\n' }),
        { text: 'two' },
      ],
    });
    repl.type(
      '/permissions\nfirst\ns\n/permissions\n/permissions revoke edit_file\n/permissions revoke edit_file\nsecond\nn\n/exit\n',
    );
    expect(await repl.exited).toBe(0);
    const output = repl.output();
    expect(output).toMatch(
      /Approval profile: ask\.\nSandbox: workspace-write with bubblewrap \(\S+\), network off\.\nNo tool is allowed for this session yet/,
    );
    expect(output).toContain('Allowed for this session (no prompt):\n  edit_file\n');
    expect(output).toContain('Revoked: edit_file asks again before its next call.');
    expect(output).toContain('edit_file has no session grant.');
    expect(output.match(/Allow write\?/g)).toHaveLength(2);
  });
});

describe('leaving the sandbox', () => {
  it('is asked on its own line even under workspace-auto, and its session grant is its own row in /permissions', async () => {
    const probe = { toolName: 'run_command', input: { argv: ['true'], sandbox: 'network' } };
    const repl = startRepl(
      {
        main: [
          { toolCalls: [{ toolName: 'run_command', input: { argv: ['true'] } }] },
          { toolCalls: [probe] },
          { toolCalls: [probe] },
          { text: 'done' },
        ],
      },
      { args: ['--approval', 'workspace-auto'] },
    );
    repl.type('go\ns\n/permissions\n/permissions revoke run_command:network\n/exit\n');
    expect(await repl.exited).toBe(0);
    const output = repl.output();
    expect(
      output.match(
        /Allow command outside the sandbox \(leave the sandbox: network on\)\? run_command true \(leave the sandbox: network on\)/g,
      ),
    ).toHaveLength(1);
    expect(output).not.toContain('Allow command?');
    expect(output).toContain('Allowed to leave the sandbox for this session (no prompt):\n  run_command:network\n');
    expect(output).toContain('Revoked: run_command:network asks again before its next call.');
  });
});

const read: ScriptedStep = { toolCalls: [{ toolName: 'read_file', input: { path: 'notes.txt' } }] };

describe('approval of an edit', () => {
  it('shows the unified diff of a replacement against the file as it is now, plain without colour', async () => {
    const repl = startRepl({ main: [read, edit({ mode: 'replace', old: 'beta', new: 'BETA' }), { text: 'Left it.' }] });
    repl.type('change beta\nn not now\n/exit\n');
    expect(await repl.exited).toBe(0);
    expect(repl.output()).toContain('• read_file notes.txt\n  read notes.txt (3 lines)\n');
    expect(repl.output()).toContain(
      'Allow write? edit_file replace notes.txt\n--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n alpha\n-beta\n+BETA\n gamma\n[y] once',
    );
    expect(repl.output()).toContain('  denied: the user said: not now\n');
    expect(readFileSync(path.join(workspace.path, 'notes.txt'), 'utf8')).toBe('alpha\nbeta\ngamma\n');
  });

  it('colours the diff on a terminal, and says what an accepted edit did', async () => {
    const repl = startRepl(
      { main: [read, edit({ mode: 'rewrite', content: 'alpha\n' }), { text: 'done' }] },
      { terminal: true, env: { NO_COLOR: '' } },
    );
    repl.type('rewrite it\ny\n/exit\n');
    expect(await repl.exited).toBe(0);
    expect(repl.output()).toContain('\u001b[31m-beta\u001b[39m');
    expect(repl.output()).toContain('\u001b[2m  edited notes.txt (+0 −2)\u001b[22m');
    expect(readFileSync(path.join(workspace.path, 'notes.txt'), 'utf8')).toBe('alpha\n');
  });

  it.each([
    [
      'occurs twice',
      { mode: 'replace', old: 'a', new: 'A' },
      'The text to replace occurs 5 times in "notes.txt"; nothing changed.',
    ],
    [
      'is missing',
      { mode: 'replace', old: 'delta', new: 'x' },
      'The text to replace was not found in "notes.txt"; nothing changed.',
    ],
    [
      'targets an unread file',
      { mode: 'rewrite', content: 'x\n' },
      'edit_file refused: "notes.txt" has not been read in full in this session.',
    ],
  ])('refuses an edit whose text %s before any prompt, and says why in one line', async (_case, input, reason) => {
    const steps = input.mode === 'rewrite' ? [edit(input), { text: 'ok' }] : [read, edit(input), { text: 'ok' }];
    const repl = startRepl({ main: steps });
    repl.type('change it\n/exit\n');
    expect(await repl.exited).toBe(0);
    const output = repl.output();
    expect(output).not.toContain('Allow write?');
    expect(output).not.toContain('--- a/notes.txt');
    const refusal = output.split('\n').filter((line) => line.includes(reason));
    expect(refusal).toHaveLength(1);
    expect(refusal[0]).toMatch(/^ {2}(refused: )?(edit_file refused: )?/);
    const result = repl.models['main']?.requests.at(-1)?.continuation.at(-1);
    expect(result?.role === 'tool' ? result.content[0]?.output : undefined).toMatchObject({
      type: 'error-text',
      value: expect.stringContaining(reason),
    });
    expect(readFileSync(path.join(workspace.path, 'notes.txt'), 'utf8')).toBe('alpha\nbeta\ngamma\n');
  });
});
