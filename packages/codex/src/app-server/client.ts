import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { CancelledError } from '@forge/core';
import { CodexBinaryMissingError, CodexExitedError, CodexProtocolError } from '../errors.js';
import {
  approvalHandlerFromGate,
  type CodexApprovalHandler,
  type CodexApprovalRequest,
  type CodexFileChangeSummary,
} from './approvals.js';
import { resolveCodexBinary } from './binary.js';
import { JsonRpcConnection, JsonRpcReplyError } from './json-rpc.js';
import {
  clientMethods,
  clientNotifications,
  commandApprovalParamsSchema,
  fileChangeApprovalParamsSchema,
  initializeResponseSchema,
  itemNotificationSchema,
  parseThreadItem,
  serverNotifications,
  serverRequests,
  threadResumeResponseSchema,
  threadStartResponseSchema,
  turnStartResponseSchema,
} from './protocol.js';
import { checkServerVersion } from './version.js';

export interface CodexAppServerOptions {
  /** The Codex executable; see `resolveCodexBinary` for the default search. */
  readonly binaryPath?: string;
  /** Sets `CODEX_HOME` for the server (where Codex keeps config, sessions and rollouts). */
  readonly codexHome?: string;
  /** Config overrides passed as `-c key=value` (value in TOML), in order. */
  readonly configOverrides?: readonly string[];
  /** Environment for the server process; defaults to this process's environment. */
  readonly env?: NodeJS.ProcessEnv;
  readonly clientInfo?: { readonly name: string; readonly version: string };
  /** Accept an App Server version this client was not tested against. */
  readonly allowUntestedVersion?: boolean;
  /** Milliseconds to wait for the `initialize` answer (default 20 000). */
  readonly startupTimeoutMs?: number;
  /** Receives each line the server writes to stderr (its logs). */
  readonly onStderrLine?: (line: string) => void;
  /**
   * Start the server in a session and process group of its own (its pid heads both), so what it
   * starts can be found and ended with it even after it died (see `processId`).
   */
  readonly detached?: boolean;
}

/** What the running server said about itself. */
export interface CodexServerInfo {
  /** Codex version the server reported in `initialize` (for example `0.169.0`). */
  readonly version: string;
  readonly userAgent: string;
  readonly codexHome: string | undefined;
  readonly platformOs: string | undefined;
  readonly binaryPath: string;
}

export type CodexApprovalPolicy = 'untrusted' | 'on-request' | 'never';
export type CodexSandboxMode = 'read-only' | 'workspace-write' | 'danger-full-access';

export interface CodexThreadOptions {
  readonly cwd: string;
  /** When Codex asks before acting (default `untrusted`: it asks for anything not known to be safe). */
  readonly approvalPolicy?: CodexApprovalPolicy;
  readonly sandbox?: CodexSandboxMode;
  readonly model?: string;
  readonly modelProvider?: string;
  /** Extra developer instructions Codex adds to its own. */
  readonly developerInstructions?: string;
  /** Do not write a rollout file for the thread. */
  readonly ephemeral?: boolean;
}

export interface CodexThreadInfo {
  readonly threadId: string;
  /** The rollout file Codex writes for the thread (unstable in the protocol; may be absent). */
  readonly rolloutPath: string | undefined;
  readonly model: string;
  readonly modelProvider: string;
  readonly cwd: string;
}

/** A notification from the server, as sent; consumers parse the parameters they need. */
export interface CodexNotification {
  readonly method: string;
  readonly params: unknown;
}

const STDERR_TAIL_LINES = 20;

/**
 * A running `codex app-server` process and its JSON-RPC session. Create one with
 * `CodexAppServer.start`, which spawns the server, performs `initialize` + `initialized` and
 * checks the version; `close` stops it.
 */
/** Spawns `codex app-server` with the configured overrides, home and process group. */
function spawnAppServer(
  binaryPath: string,
  env: NodeJS.ProcessEnv,
  options: CodexAppServerOptions,
): ChildProcessWithoutNullStreams {
  const args = ['app-server'];
  for (const override of options.configOverrides ?? []) args.push('-c', override);
  return spawn(binaryPath, args, {
    env: { ...env, ...(options.codexHome === undefined ? {} : { CODEX_HOME: options.codexHome }) },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: options.detached === true,
  });
}

/** Sends `initialize` and waits for its answer, the server's failure or the startup timeout, whichever comes first. */
async function initializeConnection(
  connection: JsonRpcConnection,
  options: CodexAppServerOptions,
  startupFailed: Promise<never>,
) {
  const initializing = connection.request(clientMethods.initialize, {
    clientInfo: {
      name: options.clientInfo?.name ?? 'forge',
      title: null,
      version: options.clientInfo?.version ?? '0.1.0',
    },
    capabilities: { experimentalApi: false, requestAttestation: false },
  });
  const timeoutMs = options.startupTimeoutMs ?? 20_000;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new CodexProtocolError({
            method: 'initialize',
            message: `The Codex App Server did not answer initialize within ${timeoutMs} ms.`,
          }),
        ),
      timeoutMs,
    );
  });
  const raw = await Promise.race([initializing, startupFailed, timedOut]).finally(() => clearTimeout(timer));
  const response = initializeResponseSchema.safeParse(raw);
  if (!response.success) {
    throw new CodexProtocolError({
      method: 'initialize',
      message: 'The Codex App Server sent an initialize answer without a userAgent.',
      cause: response.error,
    });
  }
  return response.data;
}

export class CodexAppServer {
  readonly info: CodexServerInfo;
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly connection: JsonRpcConnection;
  private readonly listeners = new Set<(notification: CodexNotification) => void>();
  private readonly exitListeners = new Set<(error: CodexExitedError) => void>();
  private readonly fileChanges = new Map<string, CodexFileChangeSummary[]>();
  /** Threads started or resumed on this server: a turn can go to them without `thread/resume`. */
  private readonly loadedThreads = new Set<string>();
  private approvalHandler: CodexApprovalHandler = approvalHandlerFromGate(undefined);
  /** Aborted when the server closes or exits, so pending approval prompts can stop waiting. */
  private readonly lifetime = new AbortController();
  private exitError: CodexExitedError | undefined;
  private closing = false;
  private readonly exited: Promise<void>;

  private constructor(
    child: ChildProcessWithoutNullStreams,
    connection: JsonRpcConnection,
    info: CodexServerInfo,
    exited: Promise<void>,
  ) {
    this.child = child;
    this.connection = connection;
    this.info = info;
    this.exited = exited;
  }

  /** Spawns and initializes the server. Throws `CodexBinaryMissingError`, `CodexExitedError` or `CodexVersionError`. */
  static async start(options: CodexAppServerOptions = {}): Promise<CodexAppServer> {
    const env = options.env ?? process.env;
    const binary = resolveCodexBinary({
      ...(options.binaryPath === undefined ? {} : { binaryPath: options.binaryPath }),
      env,
    });
    const child = spawnAppServer(binary.path, env, options);

    const stderrTail: string[] = [];
    createInterface({ input: child.stderr, crlfDelay: Infinity }).on('line', (line) => {
      stderrTail.push(line);
      if (stderrTail.length > STDERR_TAIL_LINES) stderrTail.shift();
      options.onStderrLine?.(line);
    });

    let server: CodexAppServer | undefined;
    let failStartup: (error: Error) => void = () => {};
    const startupFailed = new Promise<never>((_, reject) => {
      failStartup = reject;
    });
    startupFailed.catch(() => {});

    const connection = new JsonRpcConnection({
      input: child.stdout,
      output: child.stdin,
      onNotification: (method, params) => server?.dispatch(method, params),
      onRequest: (method, params) => {
        if (server === undefined) return Promise.reject(new JsonRpcReplyError(-32002, 'client is still starting'));
        return server.answerServerRequest(method, params);
      },
    });
    child.stdin.on('error', () => {});

    const exited = new Promise<void>((resolve) => {
      child.once('error', (error: NodeJS.ErrnoException) => {
        const missing = new CodexBinaryMissingError({
          binaryPath: binary.path,
          cause: error,
          message: `Could not start the Codex CLI at ${binary.path} (${error.code ?? error.message}). Install @openai/codex or point FORGE_CODEX_BIN at a working executable.`,
        });
        connection.close(missing);
        failStartup(missing);
        resolve();
      });
      child.once('exit', (exitCode, signal) => {
        const tail = stderrTail.join('\n');
        const error = new CodexExitedError({
          exitCode,
          signal,
          stderrTail: tail,
          message:
            `The Codex App Server (${binary.path}) exited ${signal === null ? `with code ${String(exitCode)}` : `on signal ${signal}`}` +
            (tail.length > 0 ? `. Its last output:\n${tail}` : '.'),
        });
        connection.close(error);
        failStartup(error);
        server?.handleExit(error);
        resolve();
      });
    });

    try {
      const initialized = await initializeConnection(connection, options, startupFailed);
      const version = checkServerVersion(initialized.userAgent, options.allowUntestedVersion === true);
      connection.notify(clientNotifications.initialized);
      server = new CodexAppServer(
        child,
        connection,
        {
          version,
          userAgent: initialized.userAgent,
          codexHome: initialized.codexHome,
          platformOs: initialized.platformOs,
          binaryPath: binary.path,
        },
        exited,
      );
      return server;
    } catch (error) {
      child.kill('SIGKILL');
      await exited;
      throw error;
    }
  }

  /** Starts a new thread; Codex writes its rollout under `CODEX_HOME/sessions` unless ephemeral. */
  async startThread(options: CodexThreadOptions): Promise<CodexThreadInfo> {
    const raw = await this.connection.request(clientMethods.threadStart, {
      ...threadSettings(options),
      modelProvider: options.modelProvider,
      ephemeral: options.ephemeral,
    });
    return this.loaded(parseResponse(threadStartResponseSchema, raw, clientMethods.threadStart));
  }

  /**
   * Loads a thread Codex stored (its rollout under `CODEX_HOME/sessions`) into this server with
   * `thread/resume`, so turns can continue it after an App Server restart. The thread's approval
   * policy and sandbox are set again from `options`: nothing the thread stored decides them.
   * Throws `CodexProtocolError` (with the server's `rpcCode`) when Codex cannot resume it, for
   * example because its rollout is gone.
   */
  async resumeThread(threadId: string, options: CodexThreadOptions): Promise<CodexThreadInfo> {
    const raw = await this.connection.request(clientMethods.threadResume, {
      threadId,
      ...threadSettings(options),
      excludeTurns: true,
    });
    return this.loaded(parseResponse(threadResumeResponseSchema, raw, clientMethods.threadResume));
  }

  /** True when `threadId` was started or resumed on this server process. */
  hasLoadedThread(threadId: string): boolean {
    return this.loadedThreads.has(threadId);
  }

  private loaded(response: {
    thread: { id: string; path?: string | null | undefined };
    model: string;
    modelProvider: string;
    cwd: string;
  }): CodexThreadInfo {
    this.loadedThreads.add(response.thread.id);
    return {
      threadId: response.thread.id,
      rolloutPath: response.thread.path ?? undefined,
      model: response.model,
      modelProvider: response.modelProvider,
      cwd: response.cwd,
    };
  }

  /** Starts a turn with one text input; resolves with the turn id once Codex accepted it. */
  async startTurn(threadId: string, text: string): Promise<{ readonly turnId: string }> {
    const raw = await this.connection.request(clientMethods.turnStart, {
      threadId,
      input: [{ type: 'text', text, text_elements: [] }],
    });
    return { turnId: parseResponse(turnStartResponseSchema, raw, clientMethods.turnStart).turn.id };
  }

  /** Asks Codex to stop a running turn; the turn then completes with status `interrupted`. */
  async interruptTurn(threadId: string, turnId: string): Promise<void> {
    await this.connection.request(clientMethods.turnInterrupt, { threadId, turnId });
  }

  /** Starts Codex's own compaction of the thread; progress arrives as a `contextCompaction` item. */
  async startCompaction(threadId: string): Promise<void> {
    await this.connection.request(clientMethods.threadCompactStart, { threadId });
  }

  /** Receives every server notification until the returned function is called. */
  subscribe(listener: (notification: CodexNotification) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The server's process id (with `detached`, also its session's and process group's). */
  get processId(): number | undefined {
    return this.child.pid;
  }

  /** Settles once the server process has exited, for whatever reason (a crash, `close`). */
  whenExited(): Promise<void> {
    return this.exited;
  }

  /** Called once if the server exits while in use (not after `close`). */
  onExit(listener: (error: CodexExitedError) => void): () => void {
    if (this.exitError !== undefined) listener(this.exitError);
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }

  /** The error the server exited with, when it has exited unexpectedly. */
  get exitReason(): CodexExitedError | undefined {
    return this.exitError;
  }

  /** Decides Codex's approval requests from now on; `undefined` declines every request. */
  setApprovalHandler(handler: CodexApprovalHandler | undefined): void {
    this.approvalHandler = handler ?? approvalHandlerFromGate(undefined);
  }

  /** Closes stdin, waits briefly for the server to exit, then stops it. */
  async close(): Promise<void> {
    if (this.closing) return this.exited;
    this.closing = true;
    this.lifetime.abort();
    this.connection.close(new CancelledError('The Codex App Server client was closed.'));
    this.child.stdin.end();
    const gracePeriod = setTimeout(() => this.child.kill('SIGTERM'), 1000);
    const forceKill = setTimeout(() => this.child.kill('SIGKILL'), 3000);
    await this.exited;
    clearTimeout(gracePeriod);
    clearTimeout(forceKill);
  }

  private dispatch(method: string, params: unknown): void {
    if (method === serverNotifications.itemStarted) this.rememberFileChange(params);
    if (method === serverNotifications.itemCompleted) this.forgetFileChange(params);
    for (const listener of this.listeners) listener({ method, params });
  }

  private rememberFileChange(params: unknown): void {
    const notification = itemNotificationSchema.safeParse(params);
    if (!notification.success) return;
    try {
      const item = parseThreadItem(notification.data.item);
      if (item.type === 'fileChange') {
        this.fileChanges.set(
          item.id,
          item.changes.map((change) => ({ path: change.path, kind: change.kind.type })),
        );
      }
    } catch {
      // A malformed item is reported to subscribers as is; approvals then show no paths.
    }
  }

  private forgetFileChange(params: unknown): void {
    const notification = itemNotificationSchema.safeParse(params);
    if (!notification.success) return;
    const id = (notification.data.item as { id?: unknown } | null)?.id;
    if (typeof id === 'string') this.fileChanges.delete(id);
  }

  private async answerServerRequest(method: string, params: unknown): Promise<unknown> {
    const request = this.approvalRequest(method, params);
    return { decision: await this.approvalHandler(request, this.lifetime.signal) };
  }

  private approvalRequest(method: string, params: unknown): CodexApprovalRequest {
    if (method === serverRequests.commandApproval) {
      const { threadId, turnId, itemId, command, cwd, reason } = commandApprovalParamsSchema.parse(params);
      return {
        kind: 'command',
        threadId,
        turnId,
        itemId,
        command: command ?? '',
        cwd: cwd ?? undefined,
        reason: reason ?? undefined,
      };
    }
    if (method === serverRequests.fileChangeApproval) {
      const { threadId, turnId, itemId, reason } = fileChangeApprovalParamsSchema.parse(params);
      return {
        kind: 'fileChange',
        threadId,
        turnId,
        itemId,
        changes: this.fileChanges.get(itemId) ?? [],
        reason: reason ?? undefined,
      };
    }
    throw new JsonRpcReplyError(-32601, `Forge does not handle the server request ${method}.`);
  }

  private handleExit(error: CodexExitedError): void {
    this.lifetime.abort();
    if (this.closing) return;
    this.exitError = error;
    for (const listener of this.exitListeners) listener(error);
  }
}

/** The settings Forge sends both when it starts a thread and when it resumes one. */
function threadSettings(options: CodexThreadOptions): Record<string, unknown> {
  return {
    cwd: options.cwd,
    approvalPolicy: options.approvalPolicy ?? 'untrusted',
    sandbox: options.sandbox ?? 'workspace-write',
    model: options.model,
    developerInstructions: options.developerInstructions,
  };
}

function parseResponse<T>(
  schema: { safeParse(value: unknown): { success: true; data: T } | { success: false; error: unknown } },
  raw: unknown,
  method: string,
): T {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new CodexProtocolError({
      method,
      message: `The Codex App Server answered ${method} with a shape Forge does not read.`,
      cause: parsed.error,
    });
  }
  return parsed.data;
}
