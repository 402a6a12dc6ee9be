import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpRemoteServerConfig } from './config.js';
import type { OpenedTransport } from './stdio-transport.js';

/**
 * How a cut stream is resumed: the SDK reconnects with `Last-Event-ID`, waiting the server's
 * `retry` when it sent one and this backoff otherwise.
 */
const RECONNECTION = {
  initialReconnectionDelay: 500,
  maxReconnectionDelay: 10_000,
  reconnectionDelayGrowFactor: 1.5,
  maxRetries: 5,
};

export interface RemoteTransportOptions {
  readonly headers: Readonly<Record<string, string>>;
  readonly authProvider?: OAuthClientProvider;
}

function opened(
  transport: StreamableHTTPClientTransport | SSEClientTransport,
  kind: 'streamable-http' | 'sse',
): OpenedTransport {
  return { transport, kind, pid: () => undefined, stderrTail: () => '' };
}

function streamableTransport(url: URL, requestInit: RequestInit, options: RemoteTransportOptions): OpenedTransport {
  // The transport reads this object (not a copy) before every reconnection, so setting maxRetries
  // to 0 stops it: when the session ends the server closes its event stream, and without this the
  // SDK would go on retrying on timers (about 7 s of them) that hold the process open after close().
  const reconnection = { ...RECONNECTION };
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit,
    reconnectionOptions: reconnection,
    ...(options.authProvider === undefined ? {} : { authProvider: options.authProvider }),
  });
  return {
    ...opened(transport, 'streamable-http'),
    stopReconnecting: () => {
      reconnection.maxRetries = 0;
    },
  };
}

/**
 * The transports to try for a remote server, in order: Streamable HTTP, then the legacy SSE
 * transport when the server answers the first as an older server does (`transport` fixes one).
 */
export function remoteTransportAttempts(
  config: McpRemoteServerConfig,
  options: RemoteTransportOptions,
): (() => OpenedTransport)[] {
  const url = new URL(config.url);
  const requestInit: RequestInit = { headers: { ...options.headers } };
  const auth = options.authProvider === undefined ? {} : { authProvider: options.authProvider };
  const streamable = () => streamableTransport(url, requestInit, options);
  const sse = () => opened(new SSEClientTransport(url, { requestInit, ...auth }), 'sse');
  if (config.transport === 'streamable-http') return [streamable];
  if (config.transport === 'sse') return [sse];
  return [streamable, sse];
}

/**
 * True when a Streamable HTTP attempt failed the way a server of the older HTTP+SSE transport
 * answers it (a 4xx other than 401/403 to the initialising POST), so SSE is worth a try.
 */
export function answersLikeLegacySse(error: unknown): boolean {
  return (
    error instanceof StreamableHTTPError &&
    error.code !== undefined &&
    error.code >= 400 &&
    error.code < 500 &&
    error.code !== 401 &&
    error.code !== 403
  );
}
