import type { Tool, ToolDefinition } from '@forge/core';
import { describe, expect, it } from 'vitest';
import type { McpTool } from './mcp-tool.js';
import { roughSchemaTokens, toolSchemaCostByServer } from './schema-cost.js';

const execute: Tool['execute'] = async () => ({ output: { type: 'text', value: '' } });
const builtIn = (name: string): Tool => ({
  name,
  description: 'built in',
  inputSchema: { type: 'object' },
  risk: 'read',
  execute,
});
const fromServer = (server: string, tool: string): McpTool => ({
  name: `${server}__${tool}`,
  description: `[MCP server "${server}"] ${tool}`,
  inputSchema: { type: 'object' },
  risk: 'execute',
  mcpServer: server,
  mcpToolName: tool,
  execute,
});

describe('toolSchemaCostByServer', () => {
  it('groups built-in tools first, then each MCP server, counting each group with the given counter', () => {
    const counted: string[][] = [];
    const count = (definitions: readonly ToolDefinition[]) => {
      counted.push(definitions.map((definition) => definition.name));
      return definitions.length * 100;
    };
    const tools = [
      fromServer('git', 'log'),
      builtIn('read_file'),
      fromServer('docs', 'search'),
      fromServer('git', 'diff'),
      builtIn('edit_file'),
    ];

    expect(toolSchemaCostByServer(tools, count)).toEqual([
      { server: 'built-in', kind: 'built-in', tools: 2, tokens: 200 },
      { server: 'git', kind: 'mcp', tools: 2, tokens: 200 },
      { server: 'docs', kind: 'mcp', tools: 1, tokens: 100 },
    ]);
    expect(counted).toEqual([['read_file', 'edit_file'], ['git__log', 'git__diff'], ['docs__search']]);
  });

  it('keeps an MCP server that happens to be named "built-in" apart from the built-in tools', () => {
    const costs = toolSchemaCostByServer([builtIn('read_file'), fromServer('built-in', 'x')], roughSchemaTokens);
    expect(costs.map(({ server, kind, tools }) => ({ server, kind, tools }))).toEqual([
      { server: 'built-in', kind: 'built-in', tools: 1 },
      { server: 'built-in', kind: 'mcp', tools: 1 },
    ]);
  });

  it('returns nothing for no tools', () => {
    expect(toolSchemaCostByServer([], roughSchemaTokens)).toEqual([]);
  });
});
