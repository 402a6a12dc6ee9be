import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionIdOf, toolResultTexts, useBundle, userSetup } from './support/bundle.js';
import { freePort, startServerProcess, type ServerProcess } from './support/http-servers.js';

/*
 * Remote MCP servers through the bundled `forge` binary: the official reference server serving
 * Streamable HTTP on 127.0.0.1, reached by URL from FORGE_HOME/config.json. The model is
 * `scripted:file`, so a tool call goes over real HTTP to the real server.
 */

const require = createRequire(import.meta.url);
const everythingServer = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

/** Files under `directory` (recursively) whose bytes contain `text`. */
async function filesContaining(directory: string, text: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  const found: string[] = [];
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    if ((await readFile(file, 'utf8')).includes(text)) found.push(file);
  }
  return found;
}

const fixture = useBundle('bundle-mcp-remote');
let everything: ServerProcess;
let everythingUrl: string;

beforeAll(async () => {
  const port = await freePort();
  everything = await startServerProcess(
    [everythingServer, 'streamableHttp'],
    { PORT: String(port) },
    /listening on port/,
  );
  everythingUrl = `http://127.0.0.1:${port}/mcp`;
}, 30_000);

afterAll(async () => {
  await everything?.stop();
});

describe('the bundled forge with a Streamable HTTP MCP server', () => {
  it('tools_call: forge run lists the remote tools and calls one over HTTP', async () => {
    const user = await userSetup(fixture, 'mcp-http-run');
    await user.writeConfig({ mcpServers: [{ name: 'everything', url: everythingUrl, risk: 'read' }] });
    const script = await user.writeModelScript([
      { toolCalls: [{ toolName: 'everything__echo', input: { message: 'over streamable http' } }] },
      { toolCalls: [{ toolName: 'everything__get-sum', input: { a: 5, b: 3 } }] },
      { text: 'The remote server answered.' },
    ]);
    const run = await user.forge(['run', '--model', 'scripted:file', 'Go'], script);
    expect(run.stderr).not.toContain('forge: warning');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('The remote server answered.');
    const results = toolResultTexts((await user.session(sessionIdOf(run.stderr))).messages);
    expect(results[0]).toBe('Echo: over streamable http');
    expect(results[1]).toContain('8');
  });

  it('a header read from an unset variable is a warning naming the variable; the run goes on', async () => {
    const user = await userSetup(fixture, 'mcp-http-header');
    await user.writeConfig({
      mcpServers: [{ name: 'everything', url: everythingUrl, headers: { 'X-Api-Key': { env: 'EVERYTHING_KEY' } } }],
    });
    const script = await user.writeModelScript([{ text: 'No tools needed.' }]);
    const run = await user.forge(['run', '--model', 'scripted:file', 'Go'], script);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('forge: warning: MCP server "everything"');
    expect(run.stderr).toContain('EVERYTHING_KEY, which is not set');
  });

  it('a header value read from the environment never reaches the session, the trace or config show', async () => {
    const user = await userSetup(fixture, 'mcp-http-secret');
    const secret = 'sk-everything-header-value-0123456789';
    await user.writeConfig({
      mcpServers: [
        { name: 'everything', url: everythingUrl, risk: 'read', headers: { 'X-Api-Key': { env: 'EVERYTHING_KEY' } } },
      ],
    });
    const script = await user.writeModelScript([
      { toolCalls: [{ toolName: 'everything__echo', input: { message: `the key is ${secret}` } }] },
      { text: 'Done.' },
    ]);
    const run = await user.forge(['run', '--model', 'scripted:file', 'Go'], { ...script, EVERYTHING_KEY: secret });
    expect(run.code).toBe(0);
    const results = toolResultTexts((await user.session(sessionIdOf(run.stderr))).messages);
    expect(results[0]).toMatch(/^Echo: the key is /);
    expect(results[0]).not.toContain(secret);
    expect(await filesContaining(user.forgeHome, secret)).toEqual([]);
    const shown = await user.forge(['config', 'show']);
    expect(shown.stdout).toContain('EVERYTHING_KEY');
    expect(shown.stdout).not.toContain(secret);
  });

  it('forge run attaches a resource named with @server:uri to the request, and stores it with the session', async () => {
    const user = await userSetup(fixture, 'mcp-http-resource');
    await user.writeConfig({ mcpServers: [{ name: 'everything', url: everythingUrl, risk: 'read' }] });
    const script = await user.writeModelScript([{ text: 'Read the architecture.' }]);
    const uri = 'demo://resource/static/document/architecture.md';
    const run = await user.forge(['run', '--model', 'scripted:file', `Summarise @everything:${uri}.`], script);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`forge: attached @everything:${uri}`);
    const messages = (await user.session(sessionIdOf(run.stderr))).messages;
    const request = JSON.stringify(messages.find((message) => message.role === 'user'));
    expect(request).toContain(`Summarise @everything:${uri}.`);
    expect(request).toContain(`<mcp-resource server=\\"everything\\" uri=\\"${uri}\\">`);
    expect(request).toContain('Everything Server – Architecture');

    const started = Date.now();
    const missing = await user.forge(
      ['run', '--model', 'scripted:file', '@everything:demo://no/such/resource'],
      script,
    );
    expect(missing.code).toBe(2);
    // Ending the session must not leave the SDK's stream reconnections (about 7 s of timers) holding the process.
    expect(Date.now() - started).toBeLessThan(6_000);
    expect(missing.stderr).toContain('@everything:demo://no/such/resource could not be attached');
  });

  it('forge run runs a server prompt given as /server:prompt with its arguments', async () => {
    const user = await userSetup(fixture, 'mcp-http-prompt');
    await user.writeConfig({ mcpServers: [{ name: 'everything', url: everythingUrl, risk: 'read' }] });
    const script = await user.writeModelScript([{ text: 'It is sunny.' }]);
    const run = await user.forge(['run', '--model', 'scripted:file', '/everything:args-prompt city=Paris'], script);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('forge: running prompt args-prompt of MCP server "everything"');
    const messages = (await user.session(sessionIdOf(run.stderr))).messages;
    expect(JSON.stringify(messages.find((message) => message.role === 'user'))).toContain("What's weather in Paris?");

    const bare = await user.forge(['run', '--model', 'scripted:file', '/everything:args-prompt'], script);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('/everything:args-prompt needs city');
  });

  it('falls back to the legacy SSE transport for a server that answers Streamable HTTP the old way', async () => {
    const port = await freePort();
    const legacy = await startServerProcess([everythingServer, 'sse'], { PORT: String(port) }, /running on port/);
    try {
      const user = await userSetup(fixture, 'mcp-sse');
      await user.writeConfig({ mcpServers: [{ name: 'legacy', url: `http://127.0.0.1:${port}/sse`, risk: 'read' }] });
      const script = await user.writeModelScript([
        { toolCalls: [{ toolName: 'legacy__echo', input: { message: 'over sse' } }] },
        { text: 'The old server answered.' },
      ]);
      const run = await user.forge(['run', '--model', 'scripted:file', 'Go'], script);
      expect(run.stderr).not.toContain('forge: warning');
      expect(run.code).toBe(0);
      expect(toolResultTexts((await user.session(sessionIdOf(run.stderr))).messages)).toEqual(['Echo: over sse']);
    } finally {
      await legacy.stop();
    }
  });
});
