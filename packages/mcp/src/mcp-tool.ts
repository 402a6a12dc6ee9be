import { terminalLine } from '@forge/core/terminal';
import {
  CancelledError,
  type JsonObject,
  type JsonValue,
  type Tool,
  type ToolExecutionResult,
  type ToolRisk,
} from '@forge/core';
import { ErrorCode, McpError, type Tool as McpToolDescriptor } from '@modelcontextprotocol/sdk/types.js';
import { mcpResultText } from './content.js';
import { McpServerError, type McpServerConnection } from './server-connection.js';

/** A core tool backed by a tool of an MCP server. */
export interface McpTool extends Tool {
  /** Name of the configured server the tool belongs to. */
  readonly mcpServer: string;
  /** The tool's name on its server (the model sees `name`, which carries the server prefix). */
  readonly mcpToolName: string;
}

/** True when `tool` came from an MCP server. */
export function isMcpTool(tool: Tool): tool is McpTool {
  return (
    typeof (tool as Partial<McpTool>).mcpServer === 'string' &&
    typeof (tool as Partial<McpTool>).mcpToolName === 'string'
  );
}

export interface McpToolOptions {
  readonly connection: McpServerConnection;
  readonly descriptor: McpToolDescriptor;
  /** The unique name the model sees. */
  readonly name: string;
  readonly risk: ToolRisk;
  readonly timeoutMs: number;
  readonly outputCapChars: number;
}

/**
 * The server's input schema as the model will see it. `$schema` only costs tokens, so it goes;
 * a schema without `type` is given `"type": "object"`, which providers require.
 */
function inputSchemaOf(descriptor: McpToolDescriptor): JsonObject {
  const { $schema: _ignored, ...schema } = descriptor.inputSchema as Record<string, JsonValue>;
  return { ...schema, type: 'object' };
}

function errorText(value: string): ToolExecutionResult {
  return { output: { type: 'error-text', value } };
}

function failureText(error: unknown, server: string, tool: string, timeoutMs: number): string {
  if (McpServerError.isInstance(error)) return error.message;
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    return `MCP tool "${tool}" on server "${server}" did not answer within ${timeoutMs} ms and was cancelled. Ask for less work, or raise "toolTimeoutMs" for this server in the Forge config.`;
  }
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
    return `MCP server "${server}" stopped while running "${tool}". Its tools are unavailable until Forge is restarted; check the server's logs and configuration.`;
  }
  const reason = error instanceof Error ? error.message : String(error);
  return `MCP server "${server}" could not run "${tool}": ${reason}`;
}

/** Wraps one tool of a connected MCP server as a core {@link Tool}. */
export function createMcpTool(options: McpToolOptions): McpTool {
  const { connection, descriptor, name, risk, timeoutMs, outputCapChars } = options;
  const server = connection.name;
  const summaryOf = descriptor.description ?? descriptor.title ?? 'No description given by the server.';

  return {
    name,
    description: `[MCP server "${server}"] ${summaryOf}`,
    inputSchema: inputSchemaOf(descriptor),
    risk,
    mcpServer: server,
    mcpToolName: descriptor.name,
    // The server chose its tool's name: an approval prompt shows it escaped, never as a line of its own.
    describe: (input) => `${server}: ${terminalLine(descriptor.name)} ${JSON.stringify(input).slice(0, 200)}`,
    async execute(input, context) {
      if (input === null || typeof input !== 'object' || Array.isArray(input)) {
        return errorText(`The input of "${name}" must be a JSON object matching its schema.`);
      }
      let result;
      try {
        result = await connection.callTool(descriptor.name, input as Record<string, unknown>, {
          signal: context.signal,
          timeoutMs,
        });
      } catch (error) {
        if (context.signal.aborted)
          throw new CancelledError(`MCP tool "${descriptor.name}" on server "${server}" was cancelled.`);
        return errorText(failureText(error, server, descriptor.name, timeoutMs));
      }
      const text = mcpResultText(result, outputCapChars, name);
      const metadata: JsonObject = {
        server,
        tool: descriptor.name,
        truncated: text.truncated,
        characters: text.fullLength,
      };
      if (result.isError === true) {
        return {
          output: {
            type: 'error-text',
            value:
              text.text === ''
                ? `MCP tool "${descriptor.name}" on server "${server}" reported an error without a message.`
                : text.text,
          },
          metadata,
        };
      }
      return { output: { type: 'text', value: text.text }, metadata };
    },
  };
}
