import { terminalLine } from '@forge/core/terminal';
import type { Tool as McpToolDescriptor } from '@modelcontextprotocol/sdk/types.js';

/*
 * Bounds on what one MCP tool may add to every request: a server offering a tool with a 1 MB
 * schema would otherwise make every run stop at the context limit. A tool whose input schema is
 * larger than the bound is left out; a longer description is cut. Each is said once, by name.
 */

/** The largest input schema (as JSON) a tool is offered with: about 10,000 tokens. */
export const MAX_TOOL_SCHEMA_CHARS = 32 * 1024;
/** The longest tool description sent to a model; the rest is cut. */
export const MAX_TOOL_DESCRIPTION_CHARS = 4 * 1024;

const kib = (chars: number): string => `${Math.ceil(chars / 1024).toLocaleString('en-US')} KiB`;

/** `descriptor` within the bounds, or `undefined` (left out), with the warning to give when it changed. */
export function boundedDescriptor(
  server: string,
  descriptor: McpToolDescriptor,
): { readonly descriptor: McpToolDescriptor | undefined; readonly warning?: string } {
  const name = terminalLine(descriptor.name);
  const schemaChars = JSON.stringify(descriptor.inputSchema ?? {}).length;
  if (schemaChars > MAX_TOOL_SCHEMA_CHARS) {
    return {
      descriptor: undefined,
      warning: `MCP server "${server}" offers tool "${name}" with an input schema of ${kib(schemaChars)}, more than the ${kib(MAX_TOOL_SCHEMA_CHARS)} Forge sends a model with every request; the tool was left out.`,
    };
  }
  const description = descriptor.description;
  if (description !== undefined && description.length > MAX_TOOL_DESCRIPTION_CHARS) {
    return {
      descriptor: { ...descriptor, description: `${description.slice(0, MAX_TOOL_DESCRIPTION_CHARS)} […cut]` },
      warning: `MCP server "${server}" gives tool "${name}" a description of ${kib(description.length)}; only its first ${kib(MAX_TOOL_DESCRIPTION_CHARS)} are sent to the model.`,
    };
  }
  return { descriptor };
}
