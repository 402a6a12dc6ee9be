import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findUnpairedToolCalls, type Message } from '@forge/core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { temporaryDirectory } from '../test-support/cli-harness.js';
import { ensureTmux, TmuxTerminal } from '../test-support/tmux-terminal.js';
import { slashCommands } from './slash-commands.js';

/*
 * The REPL in a real pseudo-terminal (tmux): the built binary, raw-mode line editing, colours,
 * the footer, keys sent as a person types them, Ctrl-C as a key. The model is `scripted:file`,
 * which plays the JSON script FORGE_TEST_MODEL_SCRIPT names (see src/models/scripted-file.ts).
 * The CLI is bundled into a private directory first, so a parallel build of dist/ never
 * changes the files under a running test.
 */

const packageDirectory = fileURLToPath(new URL('../..', import.meta.url));
const buildDirectory = path.join(packageDirectory, 'node_modules', '.cache', `forge-terminal-test-${process.pid}`);
const bin = path.join(buildDirectory, 'bin', 'forge.js');

let workspace: Awaited<ReturnType<typeof temporaryDirectory>>;
let forgeHome: Awaited<ReturnType<typeof temporaryDirectory>>;
let terminal: TmuxTerminal | undefined;

beforeAll(() => {
  ensureTmux();
  execFileSync(process.execPath, ['build.mjs', path.relative(packageDirectory, path.join(buildDirectory, 'dist'))], {
    cwd: packageDirectory,
    stdio: 'inherit',
  });
  mkdirSync(path.dirname(bin), { recursive: true });
  copyFileSync(path.join(packageDirectory, 'bin', 'forge.js'), bin);
}, 60_000);

afterAll(() => {
  rmSync(buildDirectory, { recursive: true, force: true });
});

beforeEach(async () => {
  workspace = await temporaryDirectory('forge-terminal-');
  forgeHome = await temporaryDirectory('forge-terminal-home-');
});

afterEach(async () => {
  terminal?.close();
  terminal = undefined;
  await workspace.remove();
  await forgeHome.remove();
});

/** Starts `forge <args>` in a terminal (120×50 unless `columns` says otherwise) with `script` as the model's replies. */
async function startForge(
  script: readonly unknown[],
  args: readonly string[] = [],
  columns = 120,
): Promise<TmuxTerminal> {
  const scriptFile = path.join(forgeHome.path, 'model-script.json');
  await writeFile(scriptFile, JSON.stringify(script));
  terminal = TmuxTerminal.start({
    command: [process.execPath, bin, '--model', 'scripted:file', ...args],
    cwd: workspace.path,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: forgeHome.path,
      TERM: 'xterm-256color',
      FORGE_HOME: forgeHome.path,
      FORGE_TEST_MODEL_SCRIPT: scriptFile,
    },
    columns,
  });
  await terminal.waitFor((screen) => screen.includes('Type a request'), 15_000, 'the REPL banner');
  return terminal;
}

function sessionIdOn(screen: string): string {
  const id = /session (session_[A-Za-z0-9_-]+)/.exec(screen)?.[1];
  if (id === undefined) throw new Error(`no session id on the screen:\n${screen}`);
  return id;
}

/** `forge sessions show <id> --json` through the same built binary. */
function storedMessages(sessionId: string): Message[] {
  const shown = spawnSync(process.execPath, [bin, 'sessions', 'show', sessionId, '--json'], {
    env: { PATH: process.env.PATH ?? '', FORGE_HOME: forgeHome.path },
    encoding: 'utf8',
  });
  expect(shown.stderr).toBe('');
  expect(shown.status).toBe(0);
  return (JSON.parse(shown.stdout) as { messages: Message[] }).messages;
}

/** The text of every tool result, in order (error results included). */
function toolResultTexts(messages: readonly Message[]): string[] {
  return messages.flatMap((message) =>
    message.role === 'tool'
      ? message.content.map((part) =>
          'value' in part.output && typeof part.output.value === 'string' ? part.output.value : '',
        )
      : [],
  );
}

const answer = 'Streaming works: this answer arrives in several pieces.';

describe('the REPL in a terminal', () => {
  it('streams a turn, runs slash commands, shows a coloured diff, and takes an approval and a denial', async () => {
    const forge = await startForge([
      { text: answer, textChunks: 6, delayMs: 400 },
      { toolCalls: [{ toolName: 'edit_file', input: { path: 'notes.md', mode: 'create', content: 'first line\n' } }] },
      { text: 'Created notes.md.' },
      {
        toolCalls: [
          {
            toolName: 'edit_file',
            input: { path: 'notes.md', mode: 'replace', old: 'first line', new: 'second line' },
          },
        ],
      },
      { text: 'Left notes.md as it was.' },
    ]);
    const sessionId = sessionIdOn(forge.screen());
    expect(forge.screen()).toContain('─ scripted:file · mode compact · context –');

    forge.enter('hello');
    const partial = await forge.waitFor(
      (screen) => screen.includes('Streaming works') && !screen.includes('pieces.'),
      10_000,
      'the first pieces of the answer',
    );
    expect(partial).not.toContain(answer);
    await forge.waitFor((screen) => screen.includes(answer), 10_000, 'the whole answer');
    await forge.waitFor(
      (screen) => /─ scripted:file · mode compact · context ~[\d.]+k? \/ [\d.]+k \(\d+%\)/.test(screen),
      5000,
      'the footer with context use',
    );

    forge.enter('/help');
    await forge.waitFor((screen) => screen.includes('/permissions [revoke <tool>]'), 5000, '/help');
    // `/context` is exercised as soon as the REPL has it.
    if (slashCommands.some((command) => command.name === 'context')) {
      forge.enter('/context');
      await forge.waitFor((screen) => screen.includes('Context for scripted:file'), 10_000, '/context');
    }
    forge.type('/perm');
    forge.press('Tab');
    await forge.waitFor((screen) => screen.includes('› /permissions'), 5000, 'Tab completing /perm');
    forge.press('Enter');
    await forge.waitFor((screen) => screen.includes('Approval profile: ask.'), 5000, '/permissions');

    forge.enter('make a note');
    await forge.waitFor((screen) => screen.includes('[y] once'), 10_000, 'the approval prompt');
    const coloured = forge.screen({ escapes: true });
    expect(coloured).toContain('\u001b[32m+first line');
    forge.enter('y');
    await forge.waitFor((screen) => screen.includes('Created notes.md.'), 10_000, 'the accepted edit');
    expect(readFileSync(path.join(workspace.path, 'notes.md'), 'utf8')).toBe('first line\n');

    forge.enter('change the note');
    await forge.waitFor((screen) => screen.includes('+second line'), 10_000, 'the diff of the replacement');
    expect(forge.screen()).toContain('-first line');
    forge.enter('n keep the first line');
    await forge.waitFor((screen) => screen.includes('Left notes.md as it was.'), 10_000, 'the denial');
    expect(readFileSync(path.join(workspace.path, 'notes.md'), 'utf8')).toBe('first line\n');

    forge.enter('/compact --dry-run');
    await forge.waitFor((screen) => screen.includes(`Compaction preview for ${sessionId}`), 5000, '/compact --dry-run');

    forge.enter('/exit');
    expect(await forge.exitCode()).toBe(0);

    const messages = storedMessages(sessionId);
    expect(findUnpairedToolCalls(messages)).toEqual([]);
    const results = toolResultTexts(messages);
    expect(results[0]).toContain('Created "notes.md"');
    expect(results[1]).toBe('Not run: denied — the user said: keep the first line.');
  }, 60_000);

  it('cancels a long tool call on Ctrl-C, leaves a session whose call is paired, and exits on Ctrl-C twice', async () => {
    const forge = await startForge(
      [
        {
          toolCalls: [
            { toolName: 'run_command', input: { argv: [process.execPath, '-e', 'setTimeout(() => {}, 30000)'] } },
          ],
        },
        { text: 'Never sent.' },
      ],
      ['--approval', 'workspace-auto'],
    );
    const sessionId = sessionIdOn(forge.screen());
    forge.enter('run the slow thing');
    await forge.waitFor((screen) => screen.includes('• run_command'), 10_000, 'the tool call to start');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const interruptedAt = Date.now();
    forge.press('C-c');
    await forge.waitFor((screen) => screen.includes('Cancelled.'), 10_000, 'the cancellation');
    expect(Date.now() - interruptedAt).toBeLessThan(5000);

    forge.press('C-c');
    await forge.waitFor((screen) => screen.includes('(press Ctrl-C again to exit)'), 5000, 'the exit warning');
    forge.press('C-c');
    expect(await forge.exitCode()).toBe(0);

    const messages = storedMessages(sessionId);
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(findUnpairedToolCalls(messages)).toEqual([]);
    expect(toolResultTexts(messages)).toEqual([
      'Stopped: the run was cancelled while this tool was running. What it started may still be running, or may have done part of its work.',
    ]);
  }, 60_000);

  it('refuses an ambiguous edit before any prompt, saying why in one line, and suggests /context for /contxt', async () => {
    await writeFile(path.join(workspace.path, 'notes.md'), 'todo\ntodo\n');
    const forge = await startForge([
      { toolCalls: [{ toolName: 'read_file', input: { path: 'notes.md' } }] },
      {
        toolCalls: [{ toolName: 'edit_file', input: { path: 'notes.md', mode: 'replace', old: 'todo', new: 'done' } }],
      },
      { text: 'The edit was refused.' },
    ]);
    forge.enter('mark it done');
    const screen = await forge.waitFor((text) => text.includes('The edit was refused.'), 10_000, 'the end of the turn');
    expect(screen).toContain('• read_file notes.md\n  read notes.md (2 lines)');
    expect(screen).toContain(
      '• edit_file replace notes.md\n  refused: The text to replace occurs 2 times in "notes.md"; nothing changed.',
    );
    expect(screen).not.toContain('[y] once');
    expect(screen).not.toContain('Allow write?');
    expect(readFileSync(path.join(workspace.path, 'notes.md'), 'utf8')).toBe('todo\ntodo\n');

    forge.enter('/contxt');
    await forge.waitFor(
      (text) => text.includes('Unknown command /contxt. Did you mean /context? Type /help to see the commands.'),
      5000,
      'the suggestion',
    );
    forge.enter('/exit');
    expect(await forge.exitCode()).toBe(0);
  }, 60_000);

  it.each([80, 120])(
    'wraps /help at word boundaries in %i columns',
    async (columns) => {
      const forge = await startForge([], [], columns);
      forge.enter('/help');
      const screen = await forge.waitFor((text) => text.includes('y: run the call once'), 5000, '/help');
      const help = screen.slice(screen.indexOf('Commands'), screen.indexOf('› ', screen.indexOf('Approvals')));
      const lines = help.split('\n');
      // capture-pane -J joins rows the terminal wrapped by itself, so a line longer than the terminal is one Forge did not wrap.
      for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(columns);
      const words = help.split(/\s+/);
      for (const word of ['older', 'checkpoint', '(the', 'transcript', 'kept);', '--dry-run', 'previews'])
        expect(words).toContain(word);
      forge.enter('/exit');
      expect(await forge.exitCode()).toBe(0);
    },
    60_000,
  );

  it('edits by grapheme: arrows and Backspace step over whole emoji, flags and accented letters, and nothing broken is stored', async () => {
    const forge = await startForge([{ text: 'Noted.' }]);
    const sessionId = sessionIdOn(forge.screen());
    forge.type('x👍🏽y🇫🇷z');
    forge.press('Left', 'BSpace');
    await forge.waitFor((text) => text.includes('› x👍🏽yz'), 5000, 'the flag deleted whole');
    forge.press('Left', 'BSpace');
    forge.type('e\u0301');
    forge.press('End');
    forge.type('👨‍👩‍👧');
    forge.press('BSpace');
    forge.type('!');
    await forge.waitFor((text) => text.normalize('NFC').includes('› x\u00e9yz!'), 5000, 'the edited line');
    forge.press('Enter');
    await forge.waitFor((text) => text.includes('Noted.'), 10_000, 'the answer');
    forge.enter('/exit');
    expect(await forge.exitCode()).toBe(0);
    const [request] = storedMessages(sessionId);
    expect(request).toEqual({ role: 'user', content: 'xe\u0301yz!' });
  }, 60_000);

  it('shows a recap after /resume, keeps the footer measured after /resume and a /compact that changed nothing, and points /resume errors at /sessions', async () => {
    const forge = await startForge([{ text: 'First answer, about the parser.' }, { text: 'Second answer.' }]);
    const firstId = sessionIdOn(forge.screen());
    forge.enter('first request: look at the parser');
    await forge.waitFor((text) => text.includes('First answer, about the parser.'), 10_000, 'the first answer');
    forge.enter('/new');
    await forge.waitFor((text) => (text.match(/Started session/g) ?? []).length === 2, 5000, '/new');
    forge.enter('second request');
    await forge.waitFor((text) => text.includes('Second answer.'), 10_000, 'the second answer');

    forge.enter(`/resume ${firstId.slice(0, -4)}`);
    // The footer is measured after the recap is printed (the session's cost is read from its traces first): wait for both.
    const resumed = await forge.waitFor(
      (text) =>
        text.includes(`Resumed session ${firstId}`) &&
        text.slice(text.indexOf(`Resumed session ${firstId}`)).includes('─ scripted:file'),
      5000,
      '/resume',
    );
    const recap = resumed.slice(resumed.indexOf(`Resumed session ${firstId}`));
    expect(recap).toContain(
      'So far:\n  you: first request: look at the parser\n  forge: First answer, about the parser.\n',
    );
    expect(recap).toMatch(/─ scripted:file · mode compact · context ~[\d.]+k? \/ [\d.]+k \(\d+%\)/);
    expect(recap).not.toContain('context –');

    forge.enter('/compact');
    await forge.waitFor(
      (text) => text.slice(text.lastIndexOf('› /compact')).includes('─ scripted:file'),
      5000,
      '/compact',
    );
    const afterCompact = forge.screen();
    expect(afterCompact.slice(afterCompact.lastIndexOf('› /compact'))).toMatch(
      /─ scripted:file · mode compact · context ~[\d.]+k? \/ [\d.]+k/,
    );

    forge.enter('/resume session_nope');
    await forge.waitFor(
      (text) => text.includes("error: /resume 'session_nope': there is no session with this id or prefix in"),
      5000,
      'the /resume error',
    );
    expect(forge.screen()).toContain('/sessions lists them');
    forge.enter('/exit');
    expect(await forge.exitCode()).toBe(0);
  }, 60_000);

  it('shows a sign of life while an answer stalls mid-way, and erases it when the text goes on', async () => {
    const forge = await startForge([
      { text: 'Half of the answer, then the rest of it.', textChunks: 2, delayMs: 3000 },
    ]);
    forge.enter('take your time');
    await forge.waitFor(
      (text) => text.includes('Half of the answer') && text.includes('waiting for the model ·'),
      15_000,
      'the sign of life',
    );
    await forge.waitFor(
      (text) => text.includes('Half of the answer, then the rest of it.'),
      15_000,
      'the rest of the answer',
    );
    expect(forge.screen()).not.toContain('waiting for the model');
    forge.enter('/exit');
    expect(await forge.exitCode()).toBe(0);
  }, 60_000);
});
