import { createInstructionSnapshot, runAgent, type ApprovalGate, type ToolCallRequest } from '@forge/core';
import { ScriptedModel } from '@forge/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcpServers, type McpServers } from './start-servers.js';
import { testServerConfig } from './test-server.test-helpers.js';

const instructions = createInstructionSnapshot('You are a test agent.');

/** Allows read-risk calls only, like a read-only approval profile, and records what it was asked. */
function readOnlyGate(asked: ToolCallRequest[]): ApprovalGate {
  return {
    check: async (call) => {
      asked.push(call);
      return call.risk === 'read'
        ? { kind: 'allow' }
        : { kind: 'deny', reason: `read-only mode does not allow ${call.risk} tools` };
    },
  };
}

describe('MCP tools in runAgent', () => {
  let servers: McpServers;

  beforeAll(async () => {
    servers = await startMcpServers([testServerConfig('tools'), testServerConfig('docs', [], { risk: 'read' })]);
  });
  afterAll(async () => {
    await servers.close();
  });

  async function callCount(server: string): Promise<number> {
    const stats = servers.tools.find((tool) => tool.name === `${server}__stats`);
    const result = await stats?.execute({}, { toolCallId: 'stats', signal: new AbortController().signal });
    return (JSON.parse(String(result?.output.value)) as { calls: number }).calls;
  }

  it('advertises MCP tools to the model and puts them through the approval gate like built-ins', async () => {
    const asked: ToolCallRequest[] = [];
    const model = new ScriptedModel([
      {
        toolCalls: [
          { toolName: 'tools__echo', input: { text: 'rm -rf' } },
          { toolName: 'docs__echo', input: { text: 'read me' } },
        ],
      },
      { text: 'done' },
    ]);
    const result = await runAgent({
      model,
      instructions,
      request: 'use the tools',
      tools: servers.tools,
      approvals: readOnlyGate(asked),
    });

    expect(result.status).toBe('completed');
    expect(model.requests[0]?.tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['tools__echo', 'docs__echo']),
    );
    expect(asked.map((call) => [call.toolName, call.risk, call.summary])).toEqual([
      ['tools__echo', 'execute', 'tools: echo {"text":"rm -rf"}'],
      ['docs__echo', 'read', 'docs: echo {"text":"read me"}'],
    ]);

    const toolMessage = result.messages.find((message) => message.role === 'tool');
    const outputs = toolMessage?.role === 'tool' ? toolMessage.content.map((part) => part.output) : [];
    expect(outputs).toEqual([
      { type: 'error-text', value: 'Not run: denied — read-only mode does not allow execute tools.' },
      { type: 'text', value: 'echo: read me' },
    ]);
    expect(await callCount('tools')).toBe(0);
    expect(await callCount('docs')).toBe(1);
  });

  it('denies every MCP call when the run has no approval gate', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ toolName: 'docs__add', input: { a: 1, b: 2 } }] },
      { text: 'done' },
    ]);
    const before = await callCount('docs');
    const result = await runAgent({ model, instructions, request: 'add', tools: servers.tools });
    expect(result.status).toBe('completed');
    expect(await callCount('docs')).toBe(before);
  });
});
