import type { McpServerConfig } from '@forge/mcp/config';
import type { McpServers } from '@forge/mcp';
import type { CliIo } from '../io.js';
import { styleFor } from '../output/style.js';

/**
 * Starts the configured MCP servers for one session (`forge run`: the run; the REPL: its life).
 * A server that fails to start, or stops later, is a warning on stderr, never a failure: the
 * built-in tools and the other servers go on working. Undefined when none is configured, so the
 * MCP SDK is loaded only by those who use it.
 */
export async function startConfiguredMcpServers(options: {
  readonly configs: readonly McpServerConfig[];
  readonly io: CliIo;
  /** Built-in tool names; MCP tools never take them. */
  readonly reservedToolNames: readonly string[];
}): Promise<McpServers | undefined> {
  const { configs, io } = options;
  if (configs.length === 0) return undefined;
  const style = styleFor(io.stderr, io.env);
  const { startMcpServers } = await import('@forge/mcp');
  const servers = await startMcpServers(configs, {
    reservedToolNames: options.reservedToolNames,
    onWarning: (message) => io.stderr.write(`${style.yellow(`forge: warning: ${message}`)}\n`),
  });
  const ready = servers.servers.filter((server) => server.status === 'ready');
  if (ready.length > 0 && io.stderr.isTTY === true) {
    const described = ready.map(
      (server) => `${server.name} (${server.toolNames.length} tool${server.toolNames.length === 1 ? '' : 's'})`,
    );
    io.stderr.write(`${style.dim(`MCP: ${described.join(', ')}`)}\n`);
  }
  return servers;
}
