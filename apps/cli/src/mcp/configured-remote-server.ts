import { isRemoteServerConfig, type McpRemoteServerConfig } from '@forge/mcp/config';
import { UsageError } from '../cli-error.js';
import type { GlobalOptions } from '../commands/command.js';
import { loadCliConfig } from '../config/cli-config.js';
import type { CliIo } from '../io.js';

/** The configured remote server `name` and FORGE_HOME; a usage error naming what is configured otherwise. */
export async function configuredRemoteServer(
  name: string,
  io: CliIo,
  globals: GlobalOptions,
): Promise<{ readonly config: McpRemoteServerConfig; readonly forgeHome: string }> {
  const { forgeHome, loaded } = await loadCliConfig({ io, globals });
  const servers = loaded.config.mcpServers;
  const config = servers.find((server) => server.name === name);
  if (config === undefined) {
    const remote = servers.filter(isRemoteServerConfig).map((server) => server.name);
    throw new UsageError(
      `no MCP server is named "${name}" in ${loaded.files.user} (remote servers configured: ${remote.join(', ') || 'none'}); add it to "mcpServers" with its "url"`,
    );
  }
  if (!isRemoteServerConfig(config))
    throw new UsageError(
      `MCP server "${name}" is a program Forge starts (stdio), which has no login; only servers with a "url" sign in`,
    );
  return { config, forgeHome };
}
