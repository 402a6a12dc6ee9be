import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { isRemoteServerConfig, type McpServerConfig } from './config.js';
import { McpLoginRequiredError } from './oauth-provider.js';
import { commandLine } from './stdio-transport.js';

/** Where a server is, as messages name it: `MCP server "x" (node server.js)` or `MCP server "x" at https://…`. */
export function serverLabel(config: McpServerConfig): string {
  return isRemoteServerConfig(config)
    ? `MCP server "${config.name}" at ${config.url}`
    : `MCP server "${config.name}" (${commandLine(config)})`;
}

export function stderrNote(tail: string): string {
  const trimmed = tail.trim();
  return trimmed === '' ? '' : ` Its last output on stderr: ${JSON.stringify(trimmed.slice(-500))}.`;
}

/** The one line a server that needs a login gives: it names the command that fixes it. */
export function loginNeededMessage(server: string): string {
  return `MCP server "${server}" needs a login: run \`forge mcp login ${server}\`, then start Forge again.`;
}

/** True when `error` says the server refused for want of (valid) credentials. */
export function isAuthorizationFailure(error: unknown): boolean {
  return (
    McpLoginRequiredError.isInstance(error) ||
    error instanceof UnauthorizedError ||
    (error instanceof StreamableHTTPError && error.code === 401)
  );
}

/** The system error code behind a failed `fetch` (`ECONNREFUSED`, `ENOTFOUND`, ...), if any. */
export function networkErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return error instanceof TypeError && error.message === 'fetch failed' ? 'EFETCH' : undefined;
}

const NETWORK_WORDS: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused',
  ECONNRESET: 'the connection was reset',
  ENOTFOUND: 'the host name was not found',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
};

function describeRemoteStartFailure(config: McpServerConfig, error: unknown, timeoutMs: number): string {
  const where = serverLabel(config);
  if (isAuthorizationFailure(error)) return loginNeededMessage(config.name);
  const network = networkErrorCode(error);
  if (network !== undefined) {
    const words = NETWORK_WORDS[network] ?? `the request failed (${network})`;
    return `${where} could not be reached: ${words}. Check its "url" in the Forge config and that the server is running.`;
  }
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    return `${where} did not finish starting within ${timeoutMs} ms. Check that the address is an MCP endpoint, or raise its "startupTimeoutMs".`;
  }
  if (error instanceof StreamableHTTPError || (error instanceof Error && /SSE error|Non-200/.test(error.message))) {
    return `${where} refused the connection: ${error.message}. Check its "url", "headers" and "transport" in the Forge config.`;
  }
  const reason = error instanceof Error ? error.message : String(error);
  return `${where} failed to start: ${reason}. Check that the address is an MCP endpoint speaking Streamable HTTP or SSE.`;
}

/** What went wrong starting a server, and what to check. */
export function describeStartFailure(
  config: McpServerConfig,
  error: unknown,
  stderrTail: string,
  timeoutMs: number,
): string {
  if (isRemoteServerConfig(config)) return describeRemoteStartFailure(config, error, timeoutMs);
  const where = serverLabel(config);
  const code = (error as { code?: unknown }).code;
  if (code === 'ENOENT') {
    return `${where} could not start: command "${config.command}" was not found. Check its "command" in the Forge config and that the program is installed and on PATH.`;
  }
  if (code === 'EACCES') {
    return `${where} could not start: "${config.command}" is not executable. Check the file's permissions.`;
  }
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    return `${where} did not finish starting within ${timeoutMs} ms.${stderrNote(stderrTail)} Check that the command starts an MCP server speaking stdio, or raise its "startupTimeoutMs".`;
  }
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
    return `${where} exited during start-up.${stderrNote(stderrTail)} Check its arguments, "env" and "cwd" in the Forge config.`;
  }
  const reason = error instanceof Error ? error.message : String(error);
  return `${where} failed to start: ${reason}.${stderrNote(stderrTail)} Check that the command starts an MCP server speaking stdio.`;
}
