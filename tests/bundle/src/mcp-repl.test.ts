import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ensureTmux, TmuxTerminal } from '@forge/cli/testing-terminal';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sessionIdOf, toolResultTexts, useBundle, userSetup } from './support/bundle.js';
import { freePort, startServerProcess, type ServerProcess } from './support/http-servers.js';

/*
 * The REPL of the bundled `forge` binary in a real terminal (tmux) with two MCP servers: the
 * official reference server over Streamable HTTP on 127.0.0.1, and the project's stdio test
 * server, whose `add_tool` adds a tool while it runs (it then sends tools/list_changed).
 */

const require = createRequire(import.meta.url);
const everythingServer = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);
const testServer = path.join(
  path.dirname(require.resolve('@forge/mcp/package.json')),
  'src',
  'test-server',
  'test-server.mjs',
);

const httpTestServer = path.join(path.dirname(testServer), 'http-test-server.mjs');

const fixture = useBundle('bundle-mcp-repl');
let everything: ServerProcess;
let everythingUrl: string;
let asker: ServerProcess;
let askerUrl: string;
let terminal: TmuxTerminal | undefined;

beforeAll(async () => {
  ensureTmux();
  const port = await freePort();
  everything = await startServerProcess(
    [everythingServer, 'streamableHttp'],
    { PORT: String(port) },
    /listening on port/,
  );
  everythingUrl = `http://127.0.0.1:${port}/mcp`;
  asker = await startServerProcess([httpTestServer], {}, /listening on /);
  askerUrl = /listening on (\S+)/.exec(asker.output())?.[1] ?? '';
}, 30_000);

afterEach(() => {
  terminal?.close();
  terminal = undefined;
});

afterAll(async () => {
  await everything?.stop();
  await asker?.stop();
});

/** The tokens and tool count `/context` shows for one server's group, read from the last such row on the screen. */
function groupRow(screen: string, group: string): { readonly tokens: number; readonly tools: number } {
  const rows = [...screen.matchAll(new RegExp(`${group}\\s+([\\d,]+)\\s+(\\d+) tools?`, 'g'))];
  const last = rows.at(-1);
  if (last === undefined) throw new Error(`no ${group} row on the screen:\n${screen}`);
  return { tokens: Number((last[1] ?? '').replaceAll(',', '')), tools: Number(last[2]) };
}

describe('the REPL of the bundled forge with MCP servers', () => {
  it('lists servers with /mcp, attaches @server:uri, runs /server:prompt, and offers a tool added mid-session from the next turn', async () => {
    const user = await userSetup(fixture, 'mcp-repl');
    await user.writeConfig({
      mcpServers: [
        { name: 'everything', url: everythingUrl, risk: 'read' },
        { name: 'dynamic', command: process.execPath, args: [testServer], risk: 'read' },
      ],
    });
    const script = await user.writeModelScript([
      { toolCalls: [{ toolName: 'dynamic__add_tool', input: { name: 'late_tool' } }] },
      // Still the same turn: the request prefix keeps the tools the turn started with.
      { toolCalls: [{ toolName: 'dynamic__late_tool', input: { note: 'too early' } }] },
      { text: 'Added the tool.' },
      { toolCalls: [{ toolName: 'dynamic__late_tool', input: { note: 'next turn' } }] },
      { text: 'Called the late tool.' },
      { text: 'Read the architecture.' },
      { text: 'Answered the prompt.' },
    ]);
    const scriptFile = script.FORGE_TEST_MODEL_SCRIPT ?? '';
    await writeFile(path.join(user.workspace, 'README.md'), 'workspace\n');
    terminal = TmuxTerminal.start({
      command: [process.execPath, fixture.bundle().bin, '--model', 'scripted:file'],
      cwd: user.workspace,
      env: { ...user.env, TERM: 'xterm-256color', FORGE_TEST_MODEL_SCRIPT: scriptFile },
      columns: 200,
    });
    const shell = terminal;
    await shell.waitFor((screen) => screen.includes('Type a request'), 20_000, 'the REPL banner');

    shell.enter('/mcp');
    const listing = await shell.waitFor(
      (screen) => screen.includes('Attach a resource with'),
      15_000,
      'the /mcp listing',
    );
    expect(listing).toMatch(/everything\s+ready · streamable-http · \d+ tools/);
    expect(listing).toMatch(/dynamic\s+ready · stdio · \d+ tools/);
    expect(listing).toContain('@everything:demo://resource/static/document/architecture.md');
    expect(listing).toContain('/everything:simple-prompt');
    expect(listing).toContain('/everything:args-prompt city [state]');

    shell.enter('/context');
    await shell.waitFor((screen) => /mcp:dynamic\s+[\d,]+\s+\d+ tools/.test(screen), 15_000, '/context');
    const before = groupRow(shell.screen(), 'mcp:dynamic');

    shell.enter('Add a tool');
    await shell.waitFor((screen) => screen.includes('Added the tool.'), 20_000, 'the first turn');
    shell.enter('/context');
    await shell.waitFor(
      (screen) => groupRow(screen, 'mcp:dynamic').tools === before.tools + 1,
      15_000,
      '/context to count the added tool',
    );
    // The new tool's schema is counted in what every request of the next turn costs.
    expect(groupRow(shell.screen(), 'mcp:dynamic').tokens).toBeGreaterThan(before.tokens);

    shell.enter('Use the new tool');
    await shell.waitFor((screen) => screen.includes('Called the late tool.'), 20_000, 'the second turn');

    shell.enter('Summarise @everything:demo://resource/static/document/architecture.md');
    await shell.waitFor((screen) => screen.includes('Read the architecture.'), 20_000, 'the resource turn');
    expect(shell.screen()).toContain('• attached @everything:demo://resource/static/document/architecture.md');

    shell.enter('/everything:simple-prompt');
    await shell.waitFor((screen) => screen.includes('Answered the prompt.'), 20_000, 'the prompt turn');
    expect(shell.screen()).toContain('• running prompt simple-prompt of MCP server "everything"');

    shell.press('C-d');
    expect(await shell.exitCode(15_000)).toBe(0);
    const id = /session (session_[A-Za-z0-9_-]+)/.exec(shell.screen())?.[1] ?? '';
    const messages = (await user.session(id)).messages;
    const results = toolResultTexts(messages);
    expect(results[0]).toBe('added late_tool');
    expect(results[1]).toContain('Unknown tool "dynamic__late_tool"');
    expect(results[2]).toBe('late_tool: next turn');
    const requests = messages.filter((message) => message.role === 'user').map((message) => JSON.stringify(message));
    expect(requests.some((request) => request.includes('Everything Server – Architecture'))).toBe(true);
    expect(requests.some((request) => request.includes('This is a simple prompt without arguments.'))).toBe(true);
  });

  it('elicitation-sep1034-client-defaults: a server asking for input gets a prompt naming it; Enter keeps each default', async () => {
    const user = await userSetup(fixture, 'mcp-repl-elicit');
    await user.writeConfig({ mcpServers: [{ name: 'asker', url: askerUrl, risk: 'read' }] });
    const script = await user.writeModelScript([
      { toolCalls: [{ toolName: 'asker__ask', input: {} }] },
      { text: 'Got the answers.' },
    ]);
    terminal = TmuxTerminal.start({
      command: [process.execPath, fixture.bundle().bin, '--model', 'scripted:file'],
      cwd: user.workspace,
      env: { ...user.env, TERM: 'xterm-256color', FORGE_TEST_MODEL_SCRIPT: script.FORGE_TEST_MODEL_SCRIPT ?? '' },
      columns: 160,
    });
    const shell = terminal;
    await shell.waitFor((screen) => screen.includes('Type a request'), 20_000, 'the REPL banner');
    shell.enter('Make the report');
    await shell.waitFor(
      (screen) => screen.includes('MCP server "asker" asks: Which name and colour should the report use?'),
      20_000,
      'the question',
    );
    await shell.waitFor((screen) => screen.includes('Name (default Ada):'), 10_000, 'the first field');
    shell.press('Enter');
    await shell.waitFor((screen) => screen.includes('Colour [red/green/blue] (default green):'), 10_000, 'the colour');
    shell.enter('purple');
    await shell.waitFor((screen) => screen.includes('choose one of red, green, blue'), 10_000, 'the refusal');
    shell.enter('blue');
    await shell.waitFor((screen) => screen.includes('Copies (integer) (default 2):'), 10_000, 'the copies');
    shell.enter('3');
    await shell.waitFor((screen) => screen.includes('Urgent [yes/no] (default no):'), 10_000, 'the last field');
    shell.press('Enter');
    await shell.waitFor((screen) => screen.includes('Got the answers.'), 20_000, 'the answer');
    shell.press('C-d');
    expect(await shell.exitCode(15_000)).toBe(0);
    const id = /session (session_[A-Za-z0-9_-]+)/.exec(shell.screen())?.[1] ?? '';
    const [result] = toolResultTexts((await user.session(id)).messages);
    expect(JSON.parse(result ?? '')).toEqual({
      action: 'accept',
      content: { name: 'Ada', colour: 'blue', copies: 3, urgent: false },
    });
  });

  it('forge run declines a request for input and says so on stderr', async () => {
    const user = await userSetup(fixture, 'mcp-run-elicit');
    await user.writeConfig({ mcpServers: [{ name: 'asker', url: askerUrl, risk: 'read' }] });
    const script = await user.writeModelScript([
      { toolCalls: [{ toolName: 'asker__ask', input: {} }] },
      { text: 'Nobody answered.' },
    ]);
    const run = await user.forge(['run', '--model', 'scripted:file', 'Make the report'], script);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      'forge: note: MCP server "asker" asked for input ("Which name and colour should the report use?"); forge run is not interactive, so the request was declined.',
    );
    const [result] = toolResultTexts((await user.session(sessionIdOf(run.stderr))).messages);
    expect(JSON.parse(result ?? '')).toEqual({ action: 'decline' });
  });
});
