import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerConfig, McpStdioServerConfig } from './config.js';
import { MessageBuffer } from './message-buffer.js';

/** The largest message read from a server; a larger answer is dropped and its request fails (see MessageBuffer). */
export const MAX_MESSAGE_BYTES = 128 * 1024 * 1024;

/** Characters of a server's stderr kept to explain why it failed. */
const STDERR_TAIL_CHARS = 2_000;

/** A transport to one server, with what explains a failure. */
export interface OpenedTransport {
  readonly transport: Transport;
  /** `stdio`, `streamable-http` or `sse`. */
  readonly kind: 'stdio' | 'streamable-http' | 'sse';
  /** Process id of the server, for stdio while it runs. */
  pid(): number | undefined;
  /** The server's last output on stderr (stdio only). */
  stderrTail(): string;
  /** Stops the transport from reconnecting dropped streams, before the session is ended on purpose. */
  stopReconnecting?(): void;
}

export function commandLine(config: McpServerConfig): string {
  return [config.command ?? '', ...(config.args ?? [])].join(' ');
}

/** Starts the configured program with its stdio as the MCP channel; stderr is kept to explain failures. */
export function openStdioTransport(config: McpStdioServerConfig): OpenedTransport {
  let tail = '';
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
    tail = (tail + chunk.toString()).slice(-STDERR_TAIL_CHARS);
  });
  return { transport, kind: 'stdio', pid: () => transport.pid ?? undefined, stderrTail: () => tail };
}
