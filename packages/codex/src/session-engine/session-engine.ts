import type { ContextPolicy, InstructionSnapshot } from '@forge/core';
import type { EngineCompactOutcome, SessionEngine, SessionHandle } from '@forge/sessions';
import type { ApprovalProfile, SessionApprovalGate } from '@forge/tools';
import { resolveCodexBinary } from '../app-server/binary.js';
import type { CodexAppServer, CodexSandboxMode, CodexThreadOptions } from '../app-server/client.js';
import type { CodexCompactionResult } from '../engine/compact-thread.js';
import { startEndingItsCommands } from './app-server-process.js';
import { runCodexCompaction } from './compaction-turn.js';
import { runSessionTurn, runUnstoredTurn, type UnstoredThread } from './engine-turn.js';
import { chooseCodexThread } from './thread-choice.js';

export interface CodexSessionEngineOptions {
  /** Environment of the App Server process (its `CODEX_HOME`, `PATH`, proxies, `FORGE_CODEX_BIN`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly root: string;
  readonly approvals: SessionApprovalGate;
  readonly profile: ApprovalProfile;
  /** The Codex model slug from `--model codex:<slug>`; Codex's configured model when undefined. */
  readonly model: string | undefined;
  readonly instructions: () => Promise<InstructionSnapshot>;
  /** The context policy: in mode `compact`, a new thread's view is compacted past `compactAtRatio` (see `compactBeforeNewThread`). */
  readonly context: ContextPolicy;
  /** Forge's version, as the App Server's client (`initialize`'s `clientInfo`). */
  readonly clientVersion: string;
  /**
   * Turns a failure to find or start Codex (`CodexBinaryMissingError`, `CodexVersionError`, …)
   * into the host's own error, such as the CLI's usage error; thrown unchanged without it.
   */
  readonly startError?: (error: unknown) => unknown;
}

/** The Codex engine: a `SessionEngine` that compacts through Codex and shares the host's approval gate. */
export interface CodexSessionEngine extends SessionEngine<'codex'> {
  /** The approval gate Codex's command and patch requests are put to. */
  readonly approvals: SessionApprovalGate;
  compact(session: SessionHandle): Promise<EngineCompactOutcome>;
}

/**
 * The Codex engine: a Forge session maps to one Codex App Server thread. The first Codex turn of a
 * session starts a thread (Forge's instructions as its developer instructions, Forge's bounded
 * view when the session already has history) and the run records the thread, Codex's version
 * and model; later turns continue it, loaded again with `thread/resume` after a restart, and
 * send only the new request. When the thread cannot be continued (see `chooseCodexThread`) a new
 * one gets the bounded view, with an event and a note saying why. After each turn Forge keeps
 * its own checkpoint of the whole session current, so another engine can take over. The binary
 * is looked up now, so a missing one stops the command before anything is stored; the server is
 * started at the first turn and kept for the life of the process.
 */
export function createCodexSessionEngine(options: CodexSessionEngineOptions): CodexSessionEngine {
  const env = { ...options.env };
  const startError = options.startError ?? ((error: unknown) => error);
  try {
    resolveCodexBinary({ env });
  } catch (error) {
    throw startError(error);
  }
  let starting: Promise<CodexAppServer> | undefined;
  let closed = false;
  /** One per server started: settles once what it started is gone after it exited. */
  const sweeps: Promise<unknown>[] = [];
  /** The thread of unstored turns (`--no-session`), continued for as long as this server runs. */
  let unstoredThread: UnstoredThread | undefined;

  /** The running server, started on first use and again if the previous one exited (the REPL carries on). */
  const server = async (): Promise<CodexAppServer> => {
    if (closed) throw new Error('The Codex engine was closed; this is a bug in Forge.');
    const previous = starting === undefined ? undefined : await starting.catch(() => undefined);
    if (previous?.exitReason !== undefined) starting = undefined;
    starting ??= startEndingItsCommands({ env, clientVersion: options.clientVersion, sweeps }).catch(
      (error: unknown) => {
        starting = undefined;
        throw startError(error);
      },
    );
    return starting;
  };

  const sandbox: CodexSandboxMode = options.profile === 'read-only' ? 'read-only' : 'workspace-write';
  const settings: CodexThreadOptions = {
    cwd: options.root,
    sandbox,
    approvalPolicy: 'untrusted',
    ...(options.model === undefined ? {} : { model: options.model }),
  };

  return {
    name: 'codex',
    modelLabel: `codex:${options.model ?? '(Codex configuration)'}`,
    contextMode: undefined,
    root: options.root,
    approvals: options.approvals,
    async runTurn(session, turn) {
      const running = await server();
      if (session !== undefined) return runSessionTurn({ options, running, settings }, session, turn);
      const unstored = await runUnstoredTurn({ options, running, settings }, unstoredThread, turn);
      unstoredThread = unstored.thread;
      return { result: unstored.result, warnings: [] };
    },
    async compact(session) {
      return compactSession(await server(), { options, settings }, session);
    },
    async start() {
      await server();
    },
    async close() {
      closed = true;
      const started = starting;
      starting = undefined;
      if (started !== undefined) await (await started.catch(() => undefined))?.close();
      await Promise.all(sweeps);
    },
  };
}

/** `/compact` and `forge compact` of a Codex session: Codex compacts the session's thread, recorded as an engine turn. */
async function compactSession(
  running: CodexAppServer,
  engine: { readonly options: CodexSessionEngineOptions; readonly settings: CodexThreadOptions },
  session: SessionHandle,
): Promise<EngineCompactOutcome> {
  const instructions = await engine.options.instructions();
  const choice = await chooseCodexThread({
    session: session.transcript(),
    server: running,
    settings: engine.settings,
    instructionsHash: instructions.hash,
  });
  if (choice.kind !== 'continue')
    return { kind: 'nothing', reason: choice.fallback?.message ?? 'the session has no Codex thread yet' };
  let compacted: CodexCompactionResult | undefined;
  await session.runEngineTurn({
    instructions,
    model: { provider: 'codex', modelId: choice.model },
    run: (input) =>
      runCodexCompaction({ running, choice, instructions, input }, (done) => {
        compacted = done;
      }),
  });
  if (compacted === undefined) throw new Error('Codex reported no compaction; this is a bug in Forge.');
  return { kind: 'compacted', threadId: choice.threadId, itemId: compacted.itemId };
}
