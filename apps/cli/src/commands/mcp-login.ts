import { spawn } from 'node:child_process';
import { loginToMcpServer, McpCredentialFiles, McpLoginError } from '@forge/mcp';
import { mcpCredentialDirectory } from '../agent/mcp-servers.js';
import { CliError } from '../cli-error.js';
import { ExitCode } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import { configuredRemoteServer } from '../mcp/configured-remote-server.js';
import type { McpLoginOptions } from '../program.js';
import type { CommandInvocation } from './command.js';

/** Opens `url` in the desktop's browser when there is a desktop; headless, the printed address is all. */
function openInBrowser(url: URL, io: CliIo): void {
  const opener =
    process.platform === 'darwin'
      ? 'open'
      : process.platform === 'linux' && (io.env.DISPLAY !== undefined || io.env.WAYLAND_DISPLAY !== undefined)
        ? 'xdg-open'
        : undefined;
  if (opener === undefined) return;
  try {
    const child = spawn(opener, [url.toString()], { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
  } catch {
    // The address is printed; a browser that cannot be opened changes nothing.
  }
}

/**
 * `forge mcp login <server>`: signs in to a remote MCP server with OAuth. The authorization
 * address goes to stdout (for a headless machine, open it anywhere that can reach the loopback
 * redirect), the code comes back to 127.0.0.1, and the tokens are kept in FORGE_HOME (0600).
 */
export async function execute({ args, options, io }: CommandInvocation<McpLoginOptions>): Promise<number> {
  const name = String(args[0]);
  const { config, forgeHome } = await configuredRemoteServer(name, io, options);
  const files = new McpCredentialFiles(mcpCredentialDirectory(forgeHome));
  const controller = new AbortController();
  const stopInterrupts = io.onInterrupt(() => controller.abort());
  try {
    const file = await loginToMcpServer({
      config,
      files,
      signal: controller.signal,
      ...(options.timeout === undefined ? {} : { timeoutMs: options.timeout * 1000 }),
      openAuthorizationUrl: (url) => {
        io.stderr.write(`To sign in to MCP server "${name}", open this address in a browser:\n`);
        io.stdout.write(`${url.toString()}\n`);
        io.stderr.write('Waiting for the browser to come back…\n');
        openInBrowser(url, io);
      },
    });
    io.stderr.write(`Signed in to MCP server "${name}". The tokens are kept in ${file} (mode 0600).\n`);
    return ExitCode.ok;
  } catch (error) {
    if (McpLoginError.isInstance(error))
      throw new CliError(error.message, controller.signal.aborted ? ExitCode.cancelled : ExitCode.failure);
    throw error;
  } finally {
    stopInterrupts();
  }
}
