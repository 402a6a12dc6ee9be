import { afterEach, describe, expect, it } from 'vitest';
import { startMcpServers, type McpServers } from './start-servers.js';
import { testServerConfig } from './test-server.test-helpers.js';

let servers: McpServers | undefined;
afterEach(async () => {
  await servers?.close();
  servers = undefined;
});

describe('notifications/tools/list_changed', () => {
  it('lists the tools again: the next read of tools has the new one, a set already taken is unchanged', async () => {
    const changed: string[] = [];
    servers = await startMcpServers([testServerConfig('dynamic', [], { risk: 'read' })], {
      onToolsChanged: (server) => changed.push(server),
    });
    const before = servers.tools;
    const tokensBefore = servers.servers[0]?.schemaTokensHint ?? 0;
    const addTool = before.find((tool) => tool.name === 'dynamic__add_tool');
    const result = await addTool?.execute(
      { name: 'late_tool' },
      { toolCallId: 'call-1', signal: new AbortController().signal },
    );
    expect(result?.output).toEqual({ type: 'text', value: 'added late_tool' });

    // The server sent the notification before the result; settled() waits for the re-listing it started.
    await servers.settled();
    expect(changed).toEqual(['dynamic']);
    expect(before.map((tool) => tool.name)).not.toContain('dynamic__late_tool');
    const late = servers.tools.find((tool) => tool.name === 'dynamic__late_tool');
    expect(late?.description).toContain('Added while the server ran');
    expect(servers.servers[0]?.toolNames).toContain('dynamic__late_tool');
    // The budget's count of the server's schemas includes the new tool.
    expect(servers.servers[0]?.schemaTokensHint ?? 0).toBeGreaterThan(tokensBefore);
    const called = await late?.execute(
      { note: 'hello' },
      { toolCallId: 'call-2', signal: new AbortController().signal },
    );
    expect(called?.output).toEqual({ type: 'text', value: 'late_tool: hello' });
  });
});
