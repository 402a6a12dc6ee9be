import { CancelledError, toolDefinitions, type ToolDefinition } from '@forge/core';
import { DEFAULT_TOOL_TIMEOUT_MS, type McpServerConfig } from './config.js';
import { DEFAULT_MCP_OUTPUT_CAP_CHARS } from './content.js';
import { createMcpTool, type McpTool } from './mcp-tool.js';
import { boundedDescriptor } from './tool-bounds.js';
import { connectMcpServer, McpServerError, type McpServerConnection } from './server-connection.js';
import { roughSchemaTokens, type CountSchemaTokens } from './schema-cost.js';
import { assignToolNames } from './tool-names.js';

/** What became of one configured server. */
export interface McpServerStatus {
  readonly name: string;
  /** `failed`: it did not start, or stopped later; `error` says why and what to check. */
  readonly status: 'ready' | 'failed';
  readonly error?: string;
  /** Names the model sees for the server's tools (empty when it failed to start). */
  readonly toolNames: readonly string[];
  /** Tokens of the server's tool schemas, counted with `countSchemaTokens` (or core's conservative counter without it). */
  readonly schemaTokensHint?: number;
  /** Process id of the server while it ran. */
  readonly pid?: number;
}

export interface StartMcpServersOptions {
  /** Aborting stops every start-up in progress; the call then rejects with `CancelledError`. */
  readonly signal?: AbortSignal;
  /** Told about every server that fails to start or stops later. Never throws out of `startMcpServers`. */
  readonly onWarning?: (message: string, server: string) => void;
  /** Names already used by built-in tools; MCP tools never take them. */
  readonly reservedToolNames?: Iterable<string>;
  /** Characters of one tool result shown to the model (default 64 Ki). */
  readonly outputCapChars?: number;
  /** The budget's tool-schema counter, used for `schemaTokensHint`. */
  readonly countSchemaTokens?: CountSchemaTokens;
}

export interface McpServers {
  /** Tools of every ready server, in configuration order, ready to pass to `runAgent`. */
  readonly tools: readonly McpTool[];
  /** One entry per configured server, in configuration order; reflects crashes after start-up. */
  readonly servers: readonly McpServerStatus[];
  /** Ends every server process. Safe to call more than once. */
  close(): Promise<void>;
}

type Started =
  | { readonly config: McpServerConfig; readonly connection: McpServerConnection }
  | { readonly config: McpServerConfig; readonly error: string };

/**
 * Starts the configured MCP servers over stdio at the same time, lists their tools and wraps each
 * as a core tool named `<server>__<tool>`. A server that cannot start, does not answer in time or
 * exits is reported through `onWarning` and as `failed`, never thrown: the other servers and the
 * built-in tools go on working. Only cancellation through `signal` rejects.
 */
export async function startMcpServers(
  configs: readonly McpServerConfig[],
  options: StartMcpServersOptions = {},
): Promise<McpServers> {
  const warn = (message: string, server: string) => {
    try {
      options.onWarning?.(message, server);
    } catch {
      // A broken warning sink must not stop the servers from starting.
    }
  };
  const started: Started[] = await Promise.all(
    configs.map(async (config): Promise<Started> => {
      try {
        const connection = await connectMcpServer(config, {
          ...(options.signal === undefined ? {} : { signal: options.signal }),
          onStopped: (reason) => warn(reason, config.name),
        });
        return { config, connection };
      } catch (error) {
        const message = McpServerError.isInstance(error)
          ? error.message
          : `MCP server "${config.name}" failed to start: ${String(error)}`;
        return { config, error: message };
      }
    }),
  );

  const connections = started.flatMap((entry) => ('connection' in entry ? [entry.connection] : []));
  let closed = false;
  const close = async () => {
    closed = true;
    await Promise.all(connections.map((connection) => connection.close()));
  };
  if (options.signal?.aborted) {
    await close();
    throw new CancelledError('Starting the MCP servers was cancelled.');
  }

  const requests = connections.flatMap((connection) =>
    connection.tools.flatMap((offered) => {
      const { descriptor, warning } = boundedDescriptor(connection.name, offered);
      if (warning !== undefined) warn(warning, connection.name);
      return descriptor === undefined
        ? []
        : [{ server: connection.name, tool: descriptor.name, descriptor, connection }];
    }),
  );
  const names = assignToolNames(requests, options.reservedToolNames);
  const tools = requests.map((request, index) => {
    const config = started.find((entry) => entry.config.name === request.server)?.config;
    return createMcpTool({
      connection: request.connection,
      descriptor: request.descriptor,
      name: names[index] ?? request.tool,
      risk: config?.risk ?? 'execute',
      timeoutMs: config?.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
      outputCapChars: options.outputCapChars ?? DEFAULT_MCP_OUTPUT_CAP_CHARS,
    });
  });

  const countSchemaTokens = options.countSchemaTokens ?? roughSchemaTokens;
  const initial = started.map((entry): McpServerStatus => {
    if ('error' in entry) {
      warn(entry.error, entry.config.name);
      return { name: entry.config.name, status: 'failed', error: entry.error, toolNames: [] };
    }
    const own = tools.filter((tool) => tool.mcpServer === entry.config.name);
    const definitions: ToolDefinition[] = toolDefinitions(own);
    return {
      name: entry.config.name,
      status: 'ready',
      toolNames: own.map((tool) => tool.name),
      schemaTokensHint: countSchemaTokens(definitions),
      ...(entry.connection.pid === undefined ? {} : { pid: entry.connection.pid }),
    };
  });

  return {
    tools,
    get servers() {
      return initial.map((status) => {
        const reason = closed
          ? undefined
          : connections.find((connection) => connection.name === status.name)?.stoppedReason();
        return reason === undefined ? status : { ...status, status: 'failed' as const, error: reason };
      });
    },
    close,
  };
}
