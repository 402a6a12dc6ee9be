import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '@forge/core';
import type { ElicitationHandler, ElicitationRequest } from './elicitation.js';
import { startMcpServers, type McpServers } from './start-servers.js';

/*
 * A remote server over real HTTP on 127.0.0.1: the project's HTTP test server (the SDK's
 * Streamable HTTP server transport). The tests are named after the client scenarios of the
 * official conformance suite (@modelcontextprotocol/conformance) they cover.
 */

const SERVER = join(import.meta.dirname, 'test-server', 'http-test-server.mjs');
let child: ChildProcess;
let output = '';
let url = '';

beforeAll(async () => {
  child = spawn(process.execPath, [SERVER, '--retry=300'], { stdio: ['ignore', 'pipe', 'inherit'] });
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const started = Date.now();
  while (!/listening on (\S+)/.test(output)) {
    if (Date.now() - started > 10_000) throw new Error(`the test server did not start: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  url = /listening on (\S+)/.exec(output)?.[1] ?? '';
});

afterAll(() => {
  child.kill();
});

async function connect(onElicitation?: ElicitationHandler, toolTimeoutMs = 5_000): Promise<McpServers> {
  return startMcpServers(
    [{ name: 'remote', url, risk: 'read', toolTimeoutMs }],
    onElicitation === undefined ? {} : { onElicitation },
  );
}

async function call(servers: McpServers, name: string, input: JsonObject, signal = new AbortController().signal) {
  const tool = servers.tools.find((candidate) => candidate.name === `remote__${name}`);
  if (tool === undefined) throw new Error(`no tool remote__${name}`);
  return tool.execute(input, { toolCallId: 'call-1', signal });
}

describe('a remote MCP server over Streamable HTTP', () => {
  it('initialize: Forge names itself, asks for the latest protocol version, and sees the server ready', async () => {
    const servers = await connect();
    try {
      expect(output).toContain(
        `initialize from {"name":"forge","version":"0.1.0"} protocol ${LATEST_PROTOCOL_VERSION}`,
      );
      expect(servers.servers[0]).toMatchObject({ name: 'remote', status: 'ready', transport: 'streamable-http' });
    } finally {
      await servers.close();
    }
  });

  it('tools_call: lists the tools and calls one, its text coming back as the result', async () => {
    const servers = await connect();
    try {
      expect(servers.tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(['remote__echo', 'remote__slow', 'remote__cut_stream', 'remote__ask']),
      );
      expect((await call(servers, 'echo', { text: 'hi' })).output).toEqual({ type: 'text', value: 'echo: hi' });
    } finally {
      await servers.close();
    }
  });

  it('gives up on a call after toolTimeoutMs and tells the server, as for stdio', async () => {
    const servers = await connect(undefined, 500);
    try {
      const result = await call(servers, 'slow', { ms: 5_000 });
      expect(result.output.type).toBe('error-text');
      expect(String(result.output.value)).toContain('did not answer within 500 ms');
      await expect.poll(() => output).toContain('call cancelled by the client');
    } finally {
      await servers.close();
    }
  });

  it('cancels a call when the run is cancelled, and the server hears of it', async () => {
    const servers = await connect();
    try {
      const before = output.split('call cancelled by the client').length;
      const controller = new AbortController();
      const running = call(servers, 'slow', { ms: 400 }, controller.signal);
      setTimeout(() => controller.abort(new Error('stop')), 100);
      await expect(running).rejects.toThrow(/cancelled/);
      await expect.poll(() => output.split('call cancelled by the client').length).toBeGreaterThan(before);
    } finally {
      await servers.close();
    }
  });

  it('sse-retry: a response stream cut mid-call is resumed with Last-Event-ID and the call completes', async () => {
    const servers = await connect();
    try {
      const result = await call(servers, 'cut_stream', {});
      expect(result.output).toEqual({ type: 'text', value: 'finished after the stream was cut' });
      expect(output).toMatch(/resumed with Last-Event-ID \S+_\d+/);
    } finally {
      await servers.close();
    }
  });

  it('elicitation-sep1034-client-defaults: fields the user left out are sent with the schema defaults', async () => {
    const asked: ElicitationRequest[] = [];
    const servers = await connect(async (request) => {
      asked.push(request);
      return { action: 'accept', content: { colour: 'blue' } };
    });
    try {
      const result = await call(servers, 'ask', {});
      expect(asked[0]?.server).toBe('remote');
      expect(asked[0]?.fields.map((field) => [field.name, field.default])).toEqual([
        ['name', 'Ada'],
        ['colour', 'green'],
        ['copies', 2],
        ['urgent', false],
      ]);
      expect(JSON.parse(String(result.output.value))).toEqual({
        action: 'accept',
        content: { name: 'Ada', colour: 'blue', copies: 2, urgent: false },
      });
    } finally {
      await servers.close();
    }
  });

  it('declines a request for input when nobody can answer (forge run)', async () => {
    const servers = await connect();
    try {
      const result = await call(servers, 'ask', {});
      expect(JSON.parse(String(result.output.value))).toEqual({ action: 'decline' });
    } finally {
      await servers.close();
    }
  });
});
