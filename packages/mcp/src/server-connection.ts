import { CancelledError, ForgeError } from '@forge/core';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitRequestSchema,
  type CallToolResult,
  type GetPromptResult,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ServerCapabilities,
  type Tool as McpToolDescriptor,
} from '@modelcontextprotocol/sdk/types.js';
import {
  DEFAULT_STARTUP_TIMEOUT_MS,
  isRemoteServerConfig,
  resolveServerHeaders,
  type McpServerConfig,
} from './config.js';
import { describeStartFailure, networkErrorCode, serverLabel, stderrNote } from './describe-failure.js';
import { answerElicitation, type ElicitationHandler } from './elicitation.js';
import { listAll } from './list-pages.js';
import { answersLikeLegacySse, remoteTransportAttempts } from './remote-transport.js';
import { openStdioTransport, type OpenedTransport } from './stdio-transport.js';

export { MAX_MESSAGE_BYTES } from './stdio-transport.js';

const CLIENT_INFO = { name: 'forge', version: '0.1.0' };

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

/** Cancellation and a time limit for one request to a server. */
export interface RequestLimits {
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
}

/** One running MCP server: its tools as listed now, and the requests Forge makes of it. */
export interface McpServerConnection {
  readonly name: string;
  /** How Forge talks to it. */
  readonly kind: OpenedTransport['kind'];
  /** Process id of the server, while it was started by this connection. */
  readonly pid: number | undefined;
  /** The tools the server lists; re-listed whenever it says they changed. */
  readonly tools: readonly McpToolDescriptor[];
  /** What the server said it offers at start-up. */
  readonly capabilities: ServerCapabilities | undefined;
  /** Settles once the tools a change notification asked for have been listed again. */
  toolsSettled(): Promise<void>;
  /** Why the server is no longer usable (it exited, went away, or the connection was closed); undefined while it works. */
  stoppedReason(): string | undefined;
  /** Calls one tool. Rejects with `McpError` (timeout, protocol error, connection closed) or the signal's reason. */
  callTool(name: string, args: Record<string, unknown>, limits: RequestLimits): Promise<CallToolResult>;
  /** Every resource the server lists (empty when it offers none). */
  listResources(limits: RequestLimits): Promise<Resource[]>;
  readResource(uri: string, limits: RequestLimits): Promise<ReadResourceResult>;
  /** Every prompt the server lists (empty when it offers none). */
  listPrompts(limits: RequestLimits): Promise<Prompt[]>;
  getPrompt(name: string, args: Record<string, string>, limits: RequestLimits): Promise<GetPromptResult>;
  /** Ends the session, and for stdio the server process (stdin closed, then SIGTERM, then SIGKILL). */
  close(): Promise<void>;
}

export interface ConnectOptions {
  readonly signal?: AbortSignal;
  /** Called once when a working server exits, goes away or breaks its connection, not when `close()` ends it. */
  readonly onStopped?: (reason: string) => void;
  /** Called after the server said its tools changed and they were listed again. */
  readonly onToolsChanged?: (tools: readonly McpToolDescriptor[]) => void;
  /** Answers the server's requests for input from the user; without it they are declined. */
  readonly onElicitation?: ElicitationHandler;
  /** Where header values named by `{ "env": ... }` are read (remote servers). */
  readonly environment?: Readonly<Record<string, string | undefined>>;
  /** Supplies stored OAuth credentials for a remote server (see `createOAuthProvider`). */
  readonly authProvider?: OAuthClientProvider;
}

/** Longest wait for a server process to end after it was asked to (the SDK escalates to SIGKILL within 4 s). */
const PROCESS_END_WAIT_MS = 6_000;
/** Longest wait for a remote server to acknowledge the end of the session. */
const SESSION_END_WAIT_MS = 2_000;

function delay(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds).unref());
}

/** Lets data already written by a child process reach our stream handlers. */
function settleStreams(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function transportAttempts(config: McpServerConfig, options: ConnectOptions): (() => OpenedTransport)[] {
  if (!isRemoteServerConfig(config)) return [() => openStdioTransport({ ...config, command: config.command ?? '' })];
  const { headers, missing } = resolveServerHeaders(config, options.environment ?? {});
  const [first] = missing;
  if (first !== undefined) {
    throw new McpServerError({
      server: config.name,
      message: `${serverLabel(config)} was not started: its header "${first.header}" is read from the environment variable ${first.variable}, which is not set. Set ${first.variable} before starting Forge, or remove the header from the Forge config.`,
    });
  }
  const hasAuthorization = Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
  return remoteTransportAttempts(config, {
    headers,
    ...(options.authProvider === undefined || hasAuthorization ? {} : { authProvider: options.authProvider }),
  });
}

interface Session {
  readonly client: Client;
  readonly opened: OpenedTransport;
  readonly ended: Promise<void>;
}

/** Connects one client over the first transport that works; a Streamable HTTP refusal an old server gives moves to SSE. */
async function openSession(
  config: McpServerConfig,
  options: ConnectOptions,
  hooks: { remaining: () => number; onClose: () => void; onToolsChanged: () => void },
): Promise<Session> {
  const attempts = transportAttempts(config, options);
  for (const [index, attempt] of attempts.entries()) {
    const opened = attempt();
    const client = new Client(CLIENT_INFO, {
      capabilities: { elicitation: { form: {} } },
      // No debounce: the re-list starts as the notification arrives, before the result of the call that caused it.
      listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => hooks.onToolsChanged() } },
    });
    client.setRequestHandler(ElicitRequestSchema, (request) =>
      answerElicitation(config.name, request.params, options.onElicitation),
    );
    // Stray non-protocol lines on stdout and dropped event streams are reported here; they do not end the session.
    client.onerror = () => {};
    let markEnded: () => void = () => {};
    const ended = new Promise<void>((resolve) => {
      markEnded = resolve;
    });
    client.onclose = () => {
      markEnded();
      hooks.onClose();
    };
    try {
      await client.connect(opened.transport, {
        timeout: hooks.remaining(),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
      return { client, opened, ended };
    } catch (error) {
      if (index < attempts.length - 1 && answersLikeLegacySse(error)) {
        await client.close().catch(() => {});
        continue;
      }
      throw Object.assign(new Error('connect failed'), { cause: error, session: { client, opened, ended } });
    }
  }
  throw new Error('no transport to try');
}

/** Ends an opened session: stops reconnecting, ends an HTTP session, closes the client and transport, waits for the process. */
async function closeSession(opened: Session | undefined): Promise<void> {
  if (opened === undefined) return;
  const { transport } = opened.opened;
  opened.opened.stopReconnecting?.();
  if (transport instanceof StreamableHTTPClientTransport)
    await Promise.race([transport.terminateSession().catch(() => {}), delay(SESSION_END_WAIT_MS)]);
  await opened.client.close().catch(() => {});
  await transport.close().catch(() => {});
  await Promise.race([opened.ended, delay(PROCESS_END_WAIT_MS)]);
}

/** Runs one request; a remote server that cannot be reached any more is marked lost, with the reason. */
function createRequestRunner(input: {
  readonly config: McpServerConfig;
  readonly kind: Session['opened']['kind'];
  readonly stoppedReason: () => string | undefined;
  readonly markLost: (reason: string) => void;
}) {
  const { config, stoppedReason } = input;
  return async <T>(limits: RequestLimits, send: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    const stopped = stoppedReason();
    if (stopped !== undefined) throw new McpServerError({ server: config.name, message: stopped });
    const controller = new AbortController();
    const forwardAbort = () => controller.abort(limits.signal.reason);
    if (limits.signal.aborted) forwardAbort();
    limits.signal.addEventListener('abort', forwardAbort, { once: true });
    try {
      return await send(controller.signal);
    } catch (error) {
      const network = input.kind === 'stdio' ? undefined : networkErrorCode(error);
      if (network !== undefined && !limits.signal.aborted) {
        input.markLost(
          `${serverLabel(config)} went away (${network}). Its tools are unavailable until Forge is restarted; check that the server is running.`,
        );
        throw new McpServerError({ server: config.name, message: stoppedReason() ?? '', cause: error });
      }
      throw error;
    } finally {
      limits.signal.removeEventListener('abort', forwardAbort);
    }
  };
}

/** Ends what a failed start left running and says why it failed: cancelled, or what to check. */
async function startFailure(input: {
  readonly config: McpServerConfig;
  readonly options: ConnectOptions;
  readonly timeoutMs: number;
  readonly error: unknown;
  readonly failed: Session | undefined;
  readonly endSession: (opened: Session | undefined) => Promise<void>;
}): Promise<unknown> {
  const { config, failed } = input;
  const cause = (input.error as { cause?: unknown }).cause ?? input.error;
  await settleStreams();
  const tail = failed?.opened.stderrTail() ?? '';
  await input.endSession(failed);
  if (input.options.signal?.aborted) return new CancelledError(`Starting MCP server "${config.name}" was cancelled.`);
  if (McpServerError.isInstance(cause)) return cause;
  return new McpServerError({
    server: config.name,
    message: describeStartFailure(config, cause, tail, input.timeoutMs),
    cause,
  });
}

/**
 * Connects to one MCP server (starting it, for stdio), initialises the session and lists its
 * tools, all within `startupTimeoutMs`. Rejects with an {@link McpServerError} saying which server
 * failed and what to check (a started process is ended first), or with `CancelledError` when
 * `signal` aborts.
 */
export async function connectMcpServer(
  config: McpServerConfig,
  options: ConnectOptions = {},
): Promise<McpServerConnection> {
  const timeoutMs = config.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  const remaining = () => Math.max(1, deadline - Date.now());
  const state = { connected: false, closing: false, lost: undefined as string | undefined };
  let session: Session | undefined;
  let tools: McpToolDescriptor[] = [];

  const exitReason = () =>
    `${serverLabel(config)} stopped unexpectedly.${stderrNote(session?.opened.stderrTail() ?? '')} Its tools are unavailable until Forge is restarted; check the server's logs and configuration.`;
  const markLost = (reason: string) => {
    if (state.lost !== undefined || state.closing) return;
    state.lost = reason;
    void settleStreams().then(() => options.onStopped?.(reason));
  };
  const endSession = async (opened: Session | undefined) => {
    state.closing = true;
    await closeSession(opened);
  };
  let relisting: Promise<void> = Promise.resolve();
  const relistTools = async () => {
    if (session === undefined || stoppedReason() !== undefined) return;
    try {
      tools = await listAll((cursor) => session!.client.listTools(cursor), 'tools', { timeout: 10_000 });
      options.onToolsChanged?.(tools);
    } catch {
      // The next change notification, or a restart, lists them again.
    }
  };

  try {
    session = await openSession(config, options, {
      remaining,
      onClose: () => {
        if (state.connected && !state.closing) markLost(exitReason());
      },
      onToolsChanged: () => {
        relisting = relisting.then(relistTools);
      },
    });
    tools = await listAll((cursor) => session!.client.listTools(cursor), 'tools', {
      timeout: remaining(),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  } catch (error) {
    const failed = session ?? (error as { session?: Session }).session;
    state.closing = true;
    throw await startFailure({ config, options, timeoutMs, error, failed, endSession });
  }

  state.connected = true;
  const { client, opened } = session;
  const pid = opened.pid();
  function stoppedReason(): string | undefined {
    if (state.lost !== undefined) return state.lost;
    return state.closing
      ? `MCP server "${config.name}" was shut down; its tools cannot be called any more.`
      : undefined;
  }
  const request = createRequestRunner({ config, kind: opened.kind, stoppedReason, markLost });
  const capabilities = client.getServerCapabilities();

  return {
    name: config.name,
    kind: opened.kind,
    pid,
    get tools() {
      return tools;
    },
    capabilities,
    toolsSettled: () => relisting,
    stoppedReason,
    callTool: (name, args, limits) =>
      request(limits, async (signal) => {
        const result = await client.callTool({ name, arguments: args }, undefined, {
          signal,
          timeout: limits.timeoutMs,
        });
        return result as CallToolResult;
      }),
    listResources: (limits) =>
      capabilities?.resources === undefined
        ? Promise.resolve([])
        : request(limits, (signal) =>
            listAll((cursor) => client.listResources(cursor, { signal, timeout: limits.timeoutMs }), 'resources'),
          ),
    readResource: (uri, limits) =>
      request(limits, (signal) => client.readResource({ uri }, { signal, timeout: limits.timeoutMs })),
    listPrompts: (limits) =>
      capabilities?.prompts === undefined
        ? Promise.resolve([])
        : request(limits, (signal) =>
            listAll((cursor) => client.listPrompts(cursor, { signal, timeout: limits.timeoutMs }), 'prompts'),
          ),
    getPrompt: (name, args, limits) =>
      request(limits, (signal) => client.getPrompt({ name, arguments: args }, { signal, timeout: limits.timeoutMs })),
    close: async () => {
      if (state.closing) return;
      await endSession(session);
    },
  };
}
