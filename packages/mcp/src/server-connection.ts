import { CancelledError, ForgeError } from '@forge/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  ErrorCode,
  McpError,
  type CallToolResult,
  type Tool as McpToolDescriptor,
} from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_STARTUP_TIMEOUT_MS, type McpServerConfig } from './config.js';
import { MessageBuffer } from './message-buffer.js';

const CLIENT_INFO = { name: 'forge', version: '0.1.0' };
/** Characters of a server's stderr kept to explain why it failed. */
const STDERR_TAIL_CHARS = 2_000;
/** Pages of `tools/list` read at most; a server that keeps paging is broken. */
const MAX_TOOL_PAGES = 100;

/** A server that could not start, or stopped while in use. The message names the server and what to check. */
export class McpServerError extends ForgeError {
  static override readonly errorCode = 'mcp_server';
  readonly server: string;

  constructor(options: { server: string; message: string; cause?: unknown }) {
    super({ code: McpServerError.errorCode, message: options.message, isRetryable: false, cause: options.cause });
    this.name = 'McpServerError';
    this.server = options.server;
  }
}

/** The largest message read from a server; a larger answer is dropped and its request fails (see MessageBuffer). */
export const MAX_MESSAGE_BYTES = 128 * 1024 * 1024;

/** One running MCP server and the tools it listed at start-up. */
export interface McpServerConnection {
  readonly name: string;
  /** Process id of the server, while it was started by this connection. */
  readonly pid: number | undefined;
  readonly tools: readonly McpToolDescriptor[];
  /** Why the server is no longer usable (it exited, or the connection was closed); undefined while it runs. */
  stoppedReason(): string | undefined;
  /** Calls one tool. Rejects with `McpError` (timeout, protocol error, connection closed) or the signal's reason. */
  callTool(
    name: string,
    args: Record<string, unknown>,
    options: { signal: AbortSignal; timeoutMs: number },
  ): Promise<CallToolResult>;
  /** Ends the session and the server process (stdin closed, then SIGTERM, then SIGKILL). */
  close(): Promise<void>;
}

export interface ConnectOptions {
  readonly signal?: AbortSignal;
  /** Called once when a running server exits or breaks its connection, not when `close()` ends it. */
  readonly onStopped?: (reason: string) => void;
}

function commandLine(config: McpServerConfig): string {
  return [config.command, ...(config.args ?? [])].join(' ');
}

function stderrNote(tail: string): string {
  const trimmed = tail.trim();
  return trimmed === '' ? '' : ` Its last output on stderr: ${JSON.stringify(trimmed.slice(-500))}.`;
}

function describeStartFailure(config: McpServerConfig, error: unknown, stderrTail: string, timeoutMs: number): string {
  const where = `MCP server "${config.name}" (${commandLine(config)})`;
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

/** Longest wait for a server process to end after it was asked to (the SDK escalates to SIGKILL within 4 s). */
const PROCESS_END_WAIT_MS = 6_000;

function delay(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds).unref());
}

/** Lets data already written by a child process reach our stream handlers. */
function settleStreams(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Starts one MCP server over stdio, initialises the session and lists its tools, all within
 * `startupTimeoutMs`. Rejects with an {@link McpServerError} saying which server failed and what to
 * check (the process is ended first), or with `CancelledError` when `signal` aborts.
 */
export async function connectMcpServer(
  config: McpServerConfig,
  options: ConnectOptions = {},
): Promise<McpServerConnection> {
  const timeoutMs = config.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  const remaining = () => Math.max(1, deadline - Date.now());
  let stderrTail = '';
  let closing = false;

  const transport = new StdioClientTransport({
    command: config.command,
    ...(config.args === undefined ? {} : { args: config.args }),
    ...(config.env === undefined ? {} : { env: config.env }),
    ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
    stderr: 'pipe',
  });
  // The SDK's buffer is quadratic in a message's size and ends the session on one above 10 MiB;
  // see MessageBuffer. A large result is cut to the tool's output cap once it is parsed.
  (transport as unknown as { _readBuffer: MessageBuffer })._readBuffer = new MessageBuffer(MAX_MESSAGE_BYTES);
  transport.stderr?.on('data', (chunk: Buffer | string) => {
    stderrTail = (stderrTail + chunk.toString()).slice(-STDERR_TAIL_CHARS);
  });
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  // Stray non-protocol lines on stdout are reported here; they do not end the session.
  client.onerror = () => {};
  let connected = false;
  let exited = false;
  let markEnded: () => void = () => {};
  const ended = new Promise<void>((resolve) => {
    markEnded = resolve;
  });
  const exitReason = () =>
    `MCP server "${config.name}" (${commandLine(config)}) stopped unexpectedly.${stderrNote(stderrTail)} Its tools are unavailable until Forge is restarted; check the server's logs and configuration.`;
  // Called once the process has ended (or failed to spawn) and its pipes are closed.
  client.onclose = () => {
    markEnded();
    if (!connected || closing) return;
    exited = true;
    void settleStreams().then(() => options.onStopped?.(exitReason()));
  };
  const endProcess = async () => {
    closing = true;
    await client.close().catch(() => {});
    await transport.close().catch(() => {});
    await Promise.race([ended, delay(PROCESS_END_WAIT_MS)]);
  };

  const tools: McpToolDescriptor[] = [];
  try {
    await client.connect(transport, {
      timeout: remaining(),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page += 1) {
      const listed = await client.listTools(cursor === undefined ? {} : { cursor }, {
        timeout: remaining(),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
      tools.push(...listed.tools);
      cursor = listed.nextCursor;
      if (cursor === undefined) break;
    }
  } catch (error) {
    closing = true;
    await settleStreams();
    const tail = stderrTail;
    await endProcess();
    if (options.signal?.aborted) throw new CancelledError(`Starting MCP server "${config.name}" was cancelled.`);
    throw new McpServerError({
      server: config.name,
      message: describeStartFailure(config, error, tail, timeoutMs),
      cause: error,
    });
  }

  connected = true;
  const pid = transport.pid ?? undefined;
  const stoppedReason = (): string | undefined => {
    if (exited) return exitReason();
    return closing ? `MCP server "${config.name}" was shut down; its tools cannot be called any more.` : undefined;
  };

  return {
    name: config.name,
    pid,
    tools,
    stoppedReason,
    callTool: async (name, args, callOptions) => {
      const stopped = stoppedReason();
      if (stopped !== undefined) throw new McpServerError({ server: config.name, message: stopped });
      const controller = new AbortController();
      const forwardAbort = () => controller.abort(callOptions.signal.reason);
      if (callOptions.signal.aborted) forwardAbort();
      callOptions.signal.addEventListener('abort', forwardAbort, { once: true });
      try {
        const result = await client.callTool({ name, arguments: args }, undefined, {
          signal: controller.signal,
          timeout: callOptions.timeoutMs,
        });
        return result as CallToolResult;
      } finally {
        callOptions.signal.removeEventListener('abort', forwardAbort);
      }
    },
    close: async () => {
      if (closing) return;
      await endProcess();
    },
  };
}
