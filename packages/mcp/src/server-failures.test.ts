import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startMcpServers } from './start-servers.js';
import { childProcessIds, isRunning, testServerConfig } from './test-server.test-helpers.js';

const signal = new AbortController().signal;

describe('startMcpServers when servers fail', () => {
  it('starts nothing for an empty configuration', async () => {
    const servers = await startMcpServers([]);
    expect(servers.tools).toEqual([]);
    expect(servers.servers).toEqual([]);
    await servers.close();
  });

  it('reports a server whose command does not exist as a warning, and the other servers still work', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'forge-mcp-'));
    const missing = join(directory, 'no-such-mcp-server');
    const warnings: { message: string; server: string }[] = [];
    const servers = await startMcpServers([{ name: 'ghost', command: missing }, testServerConfig('alpha')], {
      onWarning: (message, server) => warnings.push({ message, server }),
    });
    try {
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.server).toBe('ghost');
      expect(warnings[0]?.message).toContain(`MCP server "ghost"`);
      expect(warnings[0]?.message).toContain(`command "${missing}" was not found`);
      expect(warnings[0]?.message).toContain('PATH');

      const [ghost, alpha] = servers.servers;
      expect(ghost).toMatchObject({ name: 'ghost', status: 'failed', toolNames: [] });
      expect(ghost?.error).toBe(warnings[0]?.message);
      expect(alpha?.status).toBe('ready');
      expect(servers.tools.every((tool) => tool.mcpServer === 'alpha')).toBe(true);
      const echo = servers.tools.find((tool) => tool.name === 'alpha__echo');
      expect((await echo?.execute({ text: 'still here' }, { toolCallId: 'c', signal }))?.output).toEqual({
        type: 'text',
        value: 'echo: still here',
      });
    } finally {
      await servers.close();
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('reports a server that exits during start-up with what it printed on stderr', async () => {
    const servers = await startMcpServers([testServerConfig('broken', ['--fail-on-start=missing EXAMPLE_API_URL'])]);
    expect(servers.servers[0]?.status).toBe('failed');
    expect(servers.servers[0]?.error).toContain('MCP server "broken"');
    expect(servers.servers[0]?.error).toContain('exited during start-up');
    expect(servers.servers[0]?.error).toContain('missing EXAMPLE_API_URL');
    expect(servers.tools).toEqual([]);
    expect(childProcessIds()).toEqual([]);
    await servers.close();
  });

  it('gives up on a server that does not answer within its start-up timeout and ends its process', async () => {
    const started = Date.now();
    const servers = await startMcpServers([testServerConfig('mute', ['--hang-on-start'], { startupTimeoutMs: 300 })]);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(servers.servers[0]?.status).toBe('failed');
    expect(servers.servers[0]?.error).toContain('did not finish starting within 300 ms');
    expect(servers.servers[0]?.error).toContain('startupTimeoutMs');
    expect(childProcessIds()).toEqual([]);
    await servers.close();
  });

  it('turns calls to a server that crashed into error-text and marks it failed, while other servers go on', async () => {
    const warnings: string[] = [];
    const servers = await startMcpServers([testServerConfig('fragile'), testServerConfig('steady')], {
      onWarning: (message) => warnings.push(message),
    });
    try {
      const tool = (name: string) => {
        const found = servers.tools.find((candidate) => candidate.name === name);
        if (found === undefined) throw new Error(`no tool ${name}`);
        return found;
      };
      const crashed = await tool('fragile__crash').execute({}, { toolCallId: 'c1', signal });
      expect(crashed.output.type).toBe('error-text');
      expect(crashed.output.value).toContain('MCP server "fragile" stopped');

      const later = await tool('fragile__echo').execute({ text: 'anyone?' }, { toolCallId: 'c2', signal });
      expect(later.output.type).toBe('error-text');
      expect(later.output.value).toContain('MCP server "fragile"');
      expect(later.output.value).toContain('stopped unexpectedly');
      expect(later.output.value).toContain('crashing on purpose');

      await expect.poll(() => warnings.length).toBe(1);
      expect(warnings[0]).toContain('MCP server "fragile"');
      expect(servers.servers.map((server) => server.status)).toEqual(['failed', 'ready']);
      expect((await tool('steady__echo').execute({ text: 'fine' }, { toolCallId: 'c3', signal })).output).toEqual({
        type: 'text',
        value: 'echo: fine',
      });
    } finally {
      await servers.close();
    }
  });

  it('close() ends every server process, and later calls return error-text', async () => {
    const servers = await startMcpServers([testServerConfig('one'), testServerConfig('two')]);
    const pids = servers.servers.map((server) => server.pid);
    expect(pids.every((pid) => typeof pid === 'number')).toBe(true);
    for (const pid of pids) expect(isRunning(pid ?? -1)).toBe(true);

    await servers.close();
    for (const pid of pids) expect(isRunning(pid ?? -1)).toBe(false);
    expect(childProcessIds()).toEqual([]);
    await servers.close();

    const result = await servers.tools[0]?.execute({ text: 'late' }, { toolCallId: 'c', signal });
    expect(result?.output.type).toBe('error-text');
    expect(result?.output.value).toContain('was shut down');
  });

  it('stops every start-up and rejects when cancelled', async () => {
    const controller = new AbortController();
    const pending = startMcpServers([testServerConfig('slowpoke', ['--hang-on-start']), testServerConfig('quick')], {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 200);
    await expect(pending).rejects.toMatchObject({ code: 'cancelled' });
    expect(childProcessIds()).toEqual([]);
  });
});
