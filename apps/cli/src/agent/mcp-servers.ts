import path from 'node:path';
import type { McpServerConfig } from '@forge/mcp/config';
import type { ElicitationHandler, McpServers } from '@forge/mcp';
import type { CliIo } from '../io.js';
import { terminalText } from '@forge/core/terminal';
import { styleFor } from '../output/style.js';

/** Where the OAuth logins of remote servers are kept: `FORGE_HOME/mcp-auth/<server>.json`, 0600. */
export function mcpCredentialDirectory(forgeHome: string): string {
  return path.join(forgeHome, 'mcp-auth');
}

/** `forge run` cannot ask anyone: a server's request for input is declined, and stderr says so. */
function declineWithNote(io: CliIo): ElicitationHandler {
  const style = styleFor(io.stderr, io.env);
  return async (request) => {
    const asked = terminalText(request.message).slice(0, 300);
    io.stderr.write(
      `${style.yellow(`forge: note: MCP server "${request.server}" asked for input (${JSON.stringify(asked)}); forge run is not interactive, so the request was declined. Run it in the REPL (forge) to answer.`)}\n`,
    );
    return { action: 'decline' };
  };
}

/**
 * Starts the configured MCP servers for one session (`forge run`: the run; the REPL: its life).
 * A server that fails to start, or stops later, is a warning on stderr, never a failure: the
 * built-in tools and the other servers go on working. Undefined when none is configured, so the
 * MCP SDK is loaded only by those who use it.
 */
export async function startConfiguredMcpServers(options: {
  readonly configs: readonly McpServerConfig[];
  readonly io: CliIo;
  readonly forgeHome: string;
  /** Built-in tool names; MCP tools never take them. */
  readonly reservedToolNames: readonly string[];
  /** Asks the user what a server requests (the REPL); without it requests are declined with a note. */
  readonly elicit?: ElicitationHandler;
}): Promise<McpServers | undefined> {
  const { configs, io } = options;
  if (configs.length === 0) return undefined;
  const style = styleFor(io.stderr, io.env);
  const { startMcpServers, McpCredentialFiles, connectionAuthProvider, isRemoteServerConfig } =
    await import('@forge/mcp');
  const files = new McpCredentialFiles(mcpCredentialDirectory(options.forgeHome));
  const servers = await startMcpServers(configs, {
    reservedToolNames: options.reservedToolNames,
    environment: io.env,
    authProviderFor: async (config) =>
      isRemoteServerConfig(config) ? connectionAuthProvider(config, files) : undefined,
    onElicitation: options.elicit ?? declineWithNote(io),
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
