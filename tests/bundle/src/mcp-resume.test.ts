import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionIdOf, toolResultTexts, useBundle, userSetup } from './support/bundle.js';
import { startServerProcess, type ServerProcess } from './support/http-servers.js';

/*
 * Streams that survive, through the bundled `forge` binary: the project's HTTP test server (the
 * SDK's Streamable HTTP server transport with an event store) announces `retry` and cuts the
 * response stream of a call in the middle; Forge reconnects with Last-Event-ID and gets the result.
 */

const require = createRequire(import.meta.url);
const httpTestServer = path.join(
  path.dirname(require.resolve('@forge/mcp/package.json')),
  'src',
  'test-server',
  'http-test-server.mjs',
);
const RETRY_MS = 700;

const fixture = useBundle('bundle-mcp-resume');
let server: ServerProcess;
let url: string;

beforeAll(async () => {
  server = await startServerProcess([httpTestServer, `--retry=${RETRY_MS}`], {}, /listening on /);
  url = /listening on (\S+)/.exec(server.output())?.[1] ?? '';
}, 30_000);

afterAll(async () => {
  await server?.stop();
});

describe('the bundled forge when a remote server cuts a stream', () => {
  it('sse-retry: a stream cut mid-call resumes with Last-Event-ID after the announced retry, and the call completes', async () => {
    const user = await userSetup(fixture, 'mcp-resume');
    await user.writeConfig({ mcpServers: [{ name: 'resumable', url, risk: 'read' }] });
    const script = await user.writeModelScript([
      { toolCalls: [{ toolName: 'resumable__cut_stream', input: {} }] },
      { text: 'The call came back.' },
    ]);
    const run = await user.forge(['run', '--model', 'scripted:file', 'Go'], script);
    expect(run.stderr).not.toContain('forge: warning');
    expect(run.code).toBe(0);
    expect(toolResultTexts((await user.session(sessionIdOf(run.stderr))).messages)).toEqual([
      'finished after the stream was cut',
    ]);
    const log = server.output();
    const cutAt = Number(/cut the stream at (\d+)/.exec(log)?.[1]);
    const resumed = /resumed with Last-Event-ID (\S+) at (\d+)/.exec(log);
    expect(resumed?.[1]).toMatch(/\S+_\d+/);
    // The client waited the server's retry (not its own 500 ms default backoff) before reconnecting.
    expect(Number(resumed?.[2]) - cutAt).toBeGreaterThanOrEqual(RETRY_MS - 50);
  });

  it('a remote server that goes away mid-run marks its tools unavailable with the reason; the run completes', async () => {
    const user = await userSetup(fixture, 'mcp-gone');
    const doomed = await startServerProcess([httpTestServer], {}, /listening on /);
    const doomedUrl = /listening on (\S+)/.exec(doomed.output())?.[1] ?? '';
    await user.writeConfig({ mcpServers: [{ name: 'doomed', url: doomedUrl, risk: 'read' }] });
    const script = await user.writeModelScript([
      { toolCalls: [{ toolName: 'doomed__echo', input: { text: 'first' } }] },
      // The server is stopped between these two calls (see below).
      { toolCalls: [{ toolName: 'doomed__echo', input: { text: 'second' } }], delayMs: 1500 },
      { toolCalls: [{ toolName: 'doomed__echo', input: { text: 'third' } }] },
      { text: 'Carried on without it.' },
    ]);
    const run = user.start(['run', '--model', 'scripted:file', 'Go'], script);
    const started = Date.now();
    while (!run.output.stderr.includes('doomed__echo') && Date.now() - started < 20_000)
      await new Promise((resolve) => setTimeout(resolve, 20));
    await doomed.stop();
    const ended = await run.ended;
    expect(ended.code).toBe(0);
    expect(ended.stdout).toContain('Carried on without it.');
    expect(ended.stderr).toContain('forge: warning: MCP server "doomed" at');
    expect(ended.stderr).toContain('went away (ECONNREFUSED)');
    const results = toolResultTexts((await user.session(sessionIdOf(ended.stderr))).messages);
    expect(results[0]).toBe('echo: first');
    expect(results[1]).toContain('went away');
    expect(results[2]).toContain('went away');
  });
});
