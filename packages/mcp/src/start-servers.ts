import { CancelledError, toolDefinitions, type ToolDefinition } from '@forge/core';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { DEFAULT_TOOL_TIMEOUT_MS, type McpServerConfig } from './config.js';
import { DEFAULT_MCP_OUTPUT_CAP_CHARS } from './content.js';
import type { ElicitationHandler } from './elicitation.js';
import { createMcpTool, type McpTool } from './mcp-tool.js';
import { connectMcpServer, McpServerError, type McpServerConnection } from './server-connection.js';
import { roughSchemaTokens, type CountSchemaTokens } from './schema-cost.js';
import { createServerCatalogue, type McpServerCatalogue } from './server-catalogue.js';
import { boundedDescriptor } from './tool-bounds.js';
import { assignToolNames } from './tool-names.js';

/** What became of one configured server. */
export interface McpServerStatus {
  readonly name: string;
  /** `failed`: it did not start, or stopped later; `error` says why and what to check. */
  readonly status: 'ready' | 'failed';
  readonly error?: string;
  /** How Forge talks to it (undefined when it did not start). */
  readonly transport?: 'stdio' | 'streamable-http' | 'sse';
  /** Names the model sees for the server's tools now (empty when it failed to start). */
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
  /** Told when a server's tools changed and were listed again; `tools` then holds the new set. */
  readonly onToolsChanged?: (server: string) => void;
  /** Names already used by built-in tools; MCP tools never take them. */
  readonly reservedToolNames?: Iterable<string>;
  /** Characters of one tool result shown to the model (default 64 Ki). */
  readonly outputCapChars?: number;
  /** The budget's tool-schema counter, used for `schemaTokensHint`. */
  readonly countSchemaTokens?: CountSchemaTokens;
  /** Where header values named by `{ "env": ... }` are read. */
  readonly environment?: Readonly<Record<string, string | undefined>>;
  /** The OAuth credentials of a remote server, if it may use any (see `createOAuthProvider`). */
  readonly authProviderFor?: (config: McpServerConfig) => Promise<OAuthClientProvider | undefined>;
  /** Asks the user what a server requests; without it every request for input is declined. */
  readonly onElicitation?: ElicitationHandler;
}

export interface McpServers extends McpServerCatalogue {
  /**
   * Tools of every ready server, in configuration order, ready to pass to `runAgent`. Read it
   * anew for each run: a server that says its tools changed gets them listed again, and the next
   * read has the new set (a run in progress keeps the set it started with).
   */
  readonly tools: readonly McpTool[];
  /** One entry per configured server, in configuration order; reflects crashes and tool changes after start-up. */
  readonly servers: readonly McpServerStatus[];
  /**
   * Settles once every re-listing of tools a server asked for has finished, or after `timeoutMs`
   * (default 2 s): awaited before a turn starts, so a change that arrived during the last turn is
   * in the next one.
   */
  settled(timeoutMs?: number): Promise<void>;
  /** Ends every server process and session. Safe to call more than once. */
  close(): Promise<void>;
}

type Started =
  | { readonly config: McpServerConfig; readonly connection: McpServerConnection }
  | { readonly config: McpServerConfig; readonly error: string };

function warner(options: StartMcpServersOptions) {
  return (message: string, server: string) => {
    try {
      options.onWarning?.(message, server);
    } catch {
      // A broken warning sink must not stop the servers from starting.
    }
  };
}

/** Connects to every configured server at once; a server that fails becomes an entry with its error. */
async function connectAll(
  configs: readonly McpServerConfig[],
  options: StartMcpServersOptions,
  warn: (message: string, server: string) => void,
  onToolsChanged: () => void,
): Promise<Started[]> {
  return Promise.all(
    configs.map(async (config): Promise<Started> => {
      try {
        const authProvider = await options.authProviderFor?.(config);
        const connection = await connectMcpServer(config, {
          ...(options.signal === undefined ? {} : { signal: options.signal }),
          ...(options.environment === undefined ? {} : { environment: options.environment }),
          ...(authProvider === undefined ? {} : { authProvider }),
          ...(options.onElicitation === undefined ? {} : { onElicitation: options.onElicitation }),
          onStopped: (reason) => warn(reason, config.name),
          onToolsChanged: () => {
            onToolsChanged();
            options.onToolsChanged?.(config.name);
          },
        });
        return { config, connection };
      } catch (error) {
        if (error instanceof CancelledError) return { config, error: error.message };
        const message = McpServerError.isInstance(error)
          ? error.message
          : `MCP server "${config.name}" failed to start: ${String(error)}`;
        return { config, error: message };
      }
    }),
  );
}

/** Settles when every connection's re-listing of tools has, or after `timeoutMs`. */
async function settledWithin(connections: readonly McpServerConnection[], timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
  });
  await Promise.race([Promise.all(connections.map((connection) => connection.toolsSettled())), limit]);
  clearTimeout(timer);
}

/**
 * Connects to the configured MCP servers at the same time (starting the stdio ones), lists their
 * tools and wraps each as a core tool named `<server>__<tool>`. A server that cannot start, does
 * not answer in time or stops is reported through `onWarning` and as `failed`, never thrown: the
 * other servers and the built-in tools go on working. Only cancellation through `signal` rejects.
 */
export async function startMcpServers(
  configs: readonly McpServerConfig[],
  options: StartMcpServersOptions = {},
): Promise<McpServers> {
  const warn = warner(options);
  let rebuild = () => {};
  const started = await connectAll(configs, options, warn, () => rebuild());

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

  const configOf = new Map(configs.map((config) => [config.name, config]));
  const warned = new Set<string>();
  const wrapAll = (): McpTool[] => {
    const requests = connections.flatMap((connection) =>
      connection.tools.flatMap((offered) => {
        const { descriptor, warning } = boundedDescriptor(connection.name, offered);
        // Re-listing after a change must not repeat the warning about the same tool.
        if (warning !== undefined && !warned.has(warning)) {
          warned.add(warning);
          warn(warning, connection.name);
        }
        return descriptor === undefined
          ? []
          : [{ server: connection.name, tool: descriptor.name, descriptor, connection }];
      }),
    );
    const names = assignToolNames(requests, options.reservedToolNames);
    return requests.map((request, index) => {
      const config = configOf.get(request.server);
      return createMcpTool({
        connection: request.connection,
        descriptor: request.descriptor,
        name: names[index] ?? request.tool,
        risk: config?.risk ?? 'execute',
        timeoutMs: config?.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
        outputCapChars: options.outputCapChars ?? DEFAULT_MCP_OUTPUT_CAP_CHARS,
      });
    });
  };
  let tools = wrapAll();
  rebuild = () => {
    tools = wrapAll();
  };
  for (const entry of started) if ('error' in entry) warn(entry.error, entry.config.name);

  const countSchemaTokens = options.countSchemaTokens ?? roughSchemaTokens;
  const statusOf = (entry: Started): McpServerStatus => {
    if ('error' in entry) return { name: entry.config.name, status: 'failed', error: entry.error, toolNames: [] };
    const { connection } = entry;
    const own = tools.filter((tool) => tool.mcpServer === entry.config.name);
    const definitions: ToolDefinition[] = toolDefinitions(own);
    const reason = closed ? undefined : connection.stoppedReason();
    return {
      name: entry.config.name,
      status: reason === undefined ? 'ready' : 'failed',
      ...(reason === undefined ? {} : { error: reason }),
      transport: connection.kind,
      toolNames: own.map((tool) => tool.name),
      schemaTokensHint: countSchemaTokens(definitions),
      ...(connection.pid === undefined ? {} : { pid: connection.pid }),
    };
  };

  return {
    get tools() {
      return tools;
    },
    get servers() {
      return started.map(statusOf);
    },
    ...createServerCatalogue(connections, (name) => configOf.get(name)),
    settled: (timeoutMs = 2_000) => settledWithin(connections, timeoutMs),
    close,
  };
}
