import { createRequire } from 'node:module';
import path from 'node:path';
import { ensureTmux, TmuxTerminal } from '@forge/cli/testing-terminal';
import { describe, expect, it } from 'vitest';
import { useBundle, userSetup } from './support/bundle.js';

/*
 * Text a model, a provider or an MCP server sends reaches the terminal escaped: a clipboard
 * write (ESC]52), a window title (ESC]0) or a screen clear (ESC[2J) is shown as `\x1b…`, never
 * acted on, and a hostile MCP tool name cannot draw a fake line in an approval prompt.
 */

const fixture = useBundle('bundle-terminal-escapes');
const ESC = '\u001b';
const testServer = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@forge/mcp/package.json')),
  'src',
  'test-server',
  'test-server.mjs',
);

const hostileReply = `Here:${ESC}]52;c;aGVsbG8=\u0007 and ${ESC}]0;owned\u0007 then ${ESC}[2J${ESC}[31mred\r over\n`;

describe('terminal escapes from a model through the bundled forge', () => {
  it('forge run prints the reply with no ESC byte, escapes shown visibly; --json keeps them JSON-escaped', async () => {
    const user = await userSetup(fixture, 'escapes-run');
    const script = await user.writeModelScript([
      { toolCalls: [{ toolName: `no_such${ESC}[2J_tool`, input: { path: `${ESC}]0;title\u0007` } }] },
      { text: hostileReply },
    ]);
    const run = await user.forge(['run', '--model', 'scripted:file', 'Say it'], script);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toContain(ESC);
    expect(run.stdout).not.toContain('\u0007');
    expect(run.stdout).toContain(
      'Here:\\x1b]52;c;aGVsbG8=\\x07 and \\x1b]0;owned\\x07 then \\x1b[2J\\x1b[31mred\\r over',
    );
    expect(run.stderr).not.toContain(ESC);
    expect(run.stderr).toContain('no_such\\x1b[2J_tool');

    const json = await user.forge(['run', '--json', '--model', 'scripted:file', 'Say it'], {
      FORGE_TEST_MODEL_SCRIPT: (await user.writeModelScript([{ text: hostileReply }])).FORGE_TEST_MODEL_SCRIPT ?? '',
    });
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).not.toContain(ESC);
    const text = json.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: { type: string; delta?: string } })
      .filter((envelope) => envelope.event.type === 'model.text.delta')
      .map((envelope) => envelope.event.delta)
      .join('');
    expect(text).toBe(hostileReply);
  });

  it('a hostile MCP tool name shows escaped in the REPL approval prompt, on one line (tmux)', async () => {
    ensureTmux();
    const user = await userSetup(fixture, 'escapes-mcp');
    const hostileName = `esc${ESC}[31mred\nline`;
    await user.writeConfig({
      mcpServers: [
        { name: 'hostile', command: process.execPath, args: [testServer, `--alias=${hostileName}`], risk: 'execute' },
      ],
    });
    const script = await user.writeModelScript([
      { toolCalls: [{ toolName: 'hostile__esc__31mred_line', input: { text: 'hi' } }] },
      { text: 'done' },
    ]);
    const terminal = TmuxTerminal.start({
      command: [process.execPath, fixture.bundle().bin, '--model', 'scripted:file'],
      cwd: user.workspace,
      env: { ...user.env, ...script, TERM: 'xterm-256color' },
    });
    try {
      await terminal.waitFor((screen) => screen.includes('Type a request'), 20_000, 'the REPL banner');
      terminal.enter('Call the tool');
      const screen = await terminal.waitFor((text) => text.includes('Allow '), 20_000, 'the approval prompt');
      const prompt = screen.split('\n').find((line) => line.includes('Allow ')) ?? '';
      expect(prompt).toContain('hostile: esc\\x1b[31mred\\nline {"text":"hi"}');
      expect(screen.split('\n').some((line) => line.startsWith('line'))).toBe(false);
      const painted = terminal.screen({ escapes: true });
      // tmux re-emits the colours Forge paints (the yellow question); a red the server chose would be 31m.
      expect(painted).not.toContain(`${ESC}[31m`);
      terminal.enter('n');
      await terminal.waitFor((text) => text.includes('done'), 20_000, 'the answer after the denial');
    } finally {
      terminal.close();
    }
  });
});
