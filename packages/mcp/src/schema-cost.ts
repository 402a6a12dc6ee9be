import { countTextConservatively, toolDefinitions, type Tool, type ToolDefinition } from '@forge/core';
import { isMcpTool } from './mcp-tool.js';

/** Counts the tokens a group of tool definitions costs in a request (the budget's counter). */
export type CountSchemaTokens = (definitions: readonly ToolDefinition[]) => number;

/** Group name of the tools that did not come from an MCP server. */
export const BUILT_IN_TOOLS_GROUP = 'built-in';

/** Schema cost of one group of tools: the built-ins, or one MCP server's. */
export interface ToolSchemaCost {
  /** `built-in`, or the name of the MCP server. */
  readonly server: string;
  readonly kind: 'built-in' | 'mcp';
  readonly tools: number;
  readonly tokens: number;
}

/** A count for when the model's tokenizer is not at hand: core's conservative counter on the schemas' JSON. */
export function roughSchemaTokens(definitions: readonly ToolDefinition[]): number {
  return countTextConservatively(JSON.stringify(definitions));
}

/**
 * The token cost of the tool schemas sent with every request, by MCP server, so `forge context`
 * can show which server costs what. Built-in tools come first, then servers in the order their
 * first tool appears in `tools`. `countTokens` is the budget's own counter, applied per group.
 */
export function toolSchemaCostByServer(tools: readonly Tool[], countTokens: CountSchemaTokens): ToolSchemaCost[] {
  const builtIn: Tool[] = [];
  const byServer = new Map<string, Tool[]>();
  for (const tool of tools) {
    if (!isMcpTool(tool)) {
      builtIn.push(tool);
      continue;
    }
    const members = byServer.get(tool.mcpServer) ?? [];
    members.push(tool);
    byServer.set(tool.mcpServer, members);
  }
  const costs: ToolSchemaCost[] = [];
  if (builtIn.length > 0)
    costs.push({
      server: BUILT_IN_TOOLS_GROUP,
      kind: 'built-in',
      tools: builtIn.length,
      tokens: countTokens(toolDefinitions(builtIn)),
    });
  for (const [server, members] of byServer)
    costs.push({ server, kind: 'mcp', tools: members.length, tokens: countTokens(toolDefinitions(members)) });
  return costs;
}
