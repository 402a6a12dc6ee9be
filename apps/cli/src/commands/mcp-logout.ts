import { McpCredentialFiles } from '@forge/mcp';
import { mcpCredentialDirectory } from '../agent/mcp-servers.js';
import { ExitCode } from '../exit-codes.js';
import { configuredRemoteServer } from '../mcp/configured-remote-server.js';
import type { McpLogoutOptions } from '../program.js';
import type { CommandInvocation } from './command.js';

/** `forge mcp logout <server>`: removes the server's stored OAuth tokens and client registration. */
export async function execute({ args, options, io }: CommandInvocation<McpLogoutOptions>): Promise<number> {
  const name = String(args[0]);
  const { forgeHome } = await configuredRemoteServer(name, io, options);
  const files = new McpCredentialFiles(mcpCredentialDirectory(forgeHome));
  const removed = await files.remove(name);
  io.stderr.write(
    removed
      ? `Signed out of MCP server "${name}": removed ${files.fileOf(name)}.\n`
      : `MCP server "${name}" had no stored login; nothing to remove.\n`,
  );
  return ExitCode.ok;
}
