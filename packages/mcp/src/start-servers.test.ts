import type { JsonValue, ToolExecutionResult } from '@forge/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcpServers, type McpServers } from './start-servers.js';
import { testServerConfig } from './test-server.test-helpers.js';
import { TOOL_NAME_PATTERN } from './tool-names.js';

async function call(
  servers: McpServers,
  name: string,
  input: JsonValue,
  signal = new AbortController().signal,
): Promise<ToolExecutionResult> {
  const tool = servers.tools.find((candidate) => candidate.name === name);
  if (tool === undefined)
    throw new Error(`no tool ${name}; have ${servers.tools.map((candidate) => candidate.name).join(', ')}`);
  return tool.execute(input, { toolCallId: 'call-1', signal });
}

async function stats(
  servers: McpServers,
  server: string,
): Promise<{ calls: number; cancelled: number; completedSlow: number }> {
  const result = await call(servers, `${server}__stats`, {});
  return JSON.parse(String(result.output.value)) as { calls: number; cancelled: number; completedSlow: number };
}

describe('startMcpServers with working servers', () => {
  let servers: McpServers;
  const warnings: string[] = [];

  beforeAll(async () => {
    servers = await startMcpServers(
      [
        testServerConfig('alpha'),
        testServerConfig('beta', ['--alias=dotted.name', '--alias=dotted_name', '--output-schema'], {
          risk: 'read',
          toolTimeoutMs: 300,
        }),
      ],
      {
        onWarning: (message) => warnings.push(message),
        outputCapChars: 1_000,
        reservedToolNames: ['read_file'],
      },
    );
  });
  afterAll(async () => {
    await servers.close();
  });

  it('advertises every tool as <server>__<tool> with the server in its description and its input schema', () => {
    expect(warnings).toEqual([]);
    const names = servers.tools.map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'alpha__echo',
        'alpha__add',
        'alpha__slow',
        'alpha__fail',
        'alpha__crash',
        'beta__echo',
        'beta__typed',
      ]),
    );
    for (const name of names) expect(name).toMatch(TOOL_NAME_PATTERN);
    expect(new Set(names).size).toBe(names.length);

    const add = servers.tools.find((tool) => tool.name === 'alpha__add');
    expect(add?.description).toBe('[MCP server "alpha"] Adds two numbers.');
    expect(add?.inputSchema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    expect(add?.inputSchema).not.toHaveProperty('$schema');
  });

  it('gives tools the execute risk unless the server is configured otherwise', () => {
    expect(servers.tools.filter((tool) => tool.mcpServer === 'alpha').every((tool) => tool.risk === 'execute')).toBe(
      true,
    );
    expect(servers.tools.filter((tool) => tool.mcpServer === 'beta').every((tool) => tool.risk === 'read')).toBe(true);
  });

  it('gives tool names that providers would reject or that clash a distinct, valid name', () => {
    const aliases = servers.tools.filter((tool) => tool.mcpToolName.startsWith('dotted'));
    expect(aliases.map((tool) => tool.mcpToolName).sort()).toEqual(['dotted.name', 'dotted_name']);
    expect(aliases.find((tool) => tool.mcpToolName === 'dotted_name')?.name).toBe('beta__dotted_name');
    expect(aliases.find((tool) => tool.mcpToolName === 'dotted.name')?.name).toMatch(/^beta__dotted_name_[0-9a-f]{8}$/);
  });

  it('reports each server as ready with its tool names and a schema size', () => {
    expect(servers.servers.map(({ name, status }) => ({ name, status }))).toEqual([
      { name: 'alpha', status: 'ready' },
      { name: 'beta', status: 'ready' },
    ]);
    const alpha = servers.servers[0];
    expect(alpha?.toolNames).toContain('alpha__echo');
    expect(alpha?.schemaTokensHint).toBeGreaterThan(50);
  });

  it('round-trips a call and returns the text the server sent', async () => {
    expect((await call(servers, 'alpha__echo', { text: 'hello' })).output).toEqual({
      type: 'text',
      value: 'echo: hello',
    });
    const sum = await call(servers, 'alpha__add', { a: 2, b: 40 });
    expect(sum.output).toEqual({ type: 'text', value: '42' });
    expect(sum.metadata).toMatchObject({ server: 'alpha', tool: 'add', truncated: false });
  });

  it('turns a result the server marks isError into error-text', async () => {
    expect((await call(servers, 'alpha__fail', { message: 'disk quota exceeded' })).output).toEqual({
      type: 'error-text',
      value: 'disk quota exceeded',
    });
  });

  it('turns input the server rejects into error-text', async () => {
    const result = await call(servers, 'alpha__add', { a: 'two' });
    expect(result.output.type).toBe('error-text');
    expect(result.output.value).toMatch(/a|b/);
  });

  it('shows images and binary resources as placeholder lines and text resources with their uri', async () => {
    const result = await call(servers, 'alpha__media', {});
    expect(result.output.type).toBe('text');
    expect(String(result.output.value).split('\n')).toEqual([
      'here is a picture',
      '[image image/png, 16 bytes: not shown to the model]',
      '[resource file:///notes.txt (text/plain)]',
      'note body',
      '[resource file:///blob.bin (application/octet-stream), 4 bytes of binary data: not shown to the model]',
      '[resource link file:///linked.md (linked)]',
    ]);
  });

  it('cuts a long result at the output cap and says so', async () => {
    const result = await call(servers, 'alpha__big', { chars: 5_000 });
    const text = String(result.output.value);
    expect(text.startsWith('x'.repeat(1_000))).toBe(true);
    expect(text).not.toContain('x'.repeat(1_001));
    expect(text).toContain('[truncated: alpha__big returned 5000 characters; only the first 1000 are shown.');
    expect(result.metadata).toMatchObject({ truncated: true, characters: 5_000 });
  });

  it('shows structured content as JSON when the server sends no text', async () => {
    expect((await call(servers, 'beta__typed', {})).output).toEqual({ type: 'text', value: '{"total":42}' });
  });

  it('stops a slow call when the run is cancelled, and the server is told', async () => {
    const controller = new AbortController();
    const before = await stats(servers, 'alpha');
    const started = Date.now();
    const pending = call(servers, 'alpha__slow', { ms: 10_000 }, controller.signal);
    setTimeout(() => controller.abort(), 100);
    await expect(pending).rejects.toMatchObject({ code: 'cancelled' });
    expect(Date.now() - started).toBeLessThan(2_000);
    await expect.poll(async () => (await stats(servers, 'alpha')).cancelled).toBe(before.cancelled + 1);
  });

  it('gives up on a call after the tool timeout with error-text that names the setting', async () => {
    const started = Date.now();
    const result = await call(servers, 'beta__slow', { ms: 10_000 });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(result.output.type).toBe('error-text');
    expect(result.output.value).toContain('did not answer within 300 ms');
    expect(result.output.value).toContain('toolTimeoutMs');
    await expect.poll(async () => (await stats(servers, 'beta')).cancelled).toBe(1);
    expect((await stats(servers, 'beta')).completedSlow).toBe(0);
  });

  it('sends a slow call that finishes in time', async () => {
    expect((await call(servers, 'alpha__slow', { ms: 20 })).output).toEqual({ type: 'text', value: 'slept 20 ms' });
  });

  it('refuses input that is not an object without calling the server', async () => {
    const before = await stats(servers, 'alpha');
    const result = await call(servers, 'alpha__echo', 'hello');
    expect(result.output.type).toBe('error-text');
    expect((await stats(servers, 'alpha')).calls).toBe(before.calls);
  });
});
