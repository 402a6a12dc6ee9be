import type { InstructionSnapshot, Message } from '@forge/core';
import {
  CodexAppServer,
  CodexBinaryMissingError,
  CodexVersionError,
  resolveCodexBinary,
  runCodexTurn,
  type CodexEventEnvelope,
  type CodexEventListener,
  type CodexRunResult,
  type CodexSandboxMode,
} from '@forge/codex';
import type { ApprovalProfile, SessionApprovalGate } from '@forge/tools';
import { UsageError } from '../cli-error.js';
import { forgeVersion } from '../version.js';
import type { EngineTurn, TurnEngine } from './turn-engine.js';

export interface CodexEngineOptions {
  /** Environment of the App Server process (its `CODEX_HOME`, `PATH`, proxies, `FORGE_CODEX_BIN`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly root: string;
  readonly approvals: SessionApprovalGate;
  readonly profile: ApprovalProfile;
  /** The Codex model slug from `--model codex:<slug>`; Codex's configured model when undefined. */
  readonly model: string | undefined;
  readonly instructions: () => Promise<InstructionSnapshot>;
}

/**
 * Turns a failure to find or start Codex into the CLI's one-line errors: a missing binary or an
 * untested version is a configuration problem (exit 2); anything else is returned unchanged.
 */
export function codexStartError(error: unknown): unknown {
  if (CodexBinaryMissingError.isInstance(error) || CodexVersionError.isInstance(error)) return new UsageError(error.message);
  return error;
}

/**
 * The Codex engine: each turn goes to `codex app-server` as the bounded active view (instructions
 * and the history the session selected) plus the request, through `runCodexTurn`. The binary is
 * looked up now, so a missing one stops the command before anything is stored; the server is
 * started at the first turn and kept for the life of the process. Each turn starts a new Codex
 * thread: the session, not Codex, holds the conversation.
 */
export function createCodexEngine(options: CodexEngineOptions): TurnEngine {
  const env = { ...options.env };
  try {
    resolveCodexBinary({ env });
  } catch (error) {
    throw codexStartError(error);
  }
  let starting: Promise<CodexAppServer> | undefined;
  let closed = false;

  /** The running server, started on first use and again if the previous one exited (the REPL carries on). */
  const server = async (): Promise<CodexAppServer> => {
    if (closed) throw new Error('The Codex engine was closed; this is a bug in Forge.');
    const previous = starting === undefined ? undefined : await starting.catch(() => undefined);
    if (previous?.exitReason !== undefined) starting = undefined;
    starting ??= CodexAppServer.start({ env, clientInfo: { name: 'forge', version: forgeVersion() } }).catch((error: unknown) => {
      starting = undefined;
      throw codexStartError(error);
    });
    return starting;
  };

  const sandbox: CodexSandboxMode = options.profile === 'read-only' ? 'read-only' : 'workspace-write';
  const thread = { cwd: options.root, sandbox, approvalPolicy: 'untrusted' as const, ...(options.model === undefined ? {} : { model: options.model }) };

  const turnOn = async (
    running: CodexAppServer,
    turn: EngineTurn,
    input: {
      readonly instructions: InstructionSnapshot;
      readonly history: readonly Message[];
      /** The session's checkpoint view: the turns before `history`, summarized. */
      readonly checkpoint?: string;
      readonly runId?: string;
      readonly sessionId?: string;
      readonly onMessage: (message: Message) => Promise<void>;
      readonly trace?: CodexEventListener;
    },
  ): Promise<CodexRunResult> => {
    // Stored before Codex starts, so a crash mid-turn still leaves the request in the session.
    await input.onMessage({ role: 'user', content: turn.request });
    const result = await runCodexTurn({
      server: running,
      thread,
      view: { instructions: input.instructions, history: input.history, ...(input.checkpoint === undefined ? {} : { checkpoint: input.checkpoint }) },
      request: turn.request,
      approvals: turn.approvals,
      signal: turn.signal,
      ...(input.runId === undefined ? {} : { runId: input.runId }),
      ...(input.sessionId === undefined ? {} : { sessionId: input.sessionId }),
      onEvent: (envelope) => {
        input.trace?.(envelope);
        route(envelope, turn);
      },
    });
    for (const message of result.messages.slice(1)) await input.onMessage(message);
    return result;
  };

  return {
    name: 'codex',
    modelLabel: `codex:${options.model ?? '(Codex configuration)'}`,
    contextMode: undefined,
    root: options.root,
    approvals: options.approvals,
    async runTurn(session, turn) {
      const running = await server();
      if (session === undefined) {
        const result = await turnOn(running, turn, { instructions: await options.instructions(), history: [], onMessage: async () => {} });
        return { result, warnings: [] };
      }
      const stored = await session.runEngineTurn({
        instructions: options.instructions,
        model: { provider: 'codex', modelId: options.model ?? 'codex-default' },
        run: (input) =>
          turnOn(running, turn, {
            instructions: input.instructions,
            history: input.history,
            ...(input.checkpoint === undefined ? {} : { checkpoint: input.checkpoint }),
            runId: input.runId,
            sessionId: input.sessionId,
            onMessage: input.onMessage,
            trace: input.onEvent,
          }),
      });
      return { result: stored.result, warnings: stored.warnings };
    },
    async start() {
      await server();
    },
    async close() {
      closed = true;
      const started = starting;
      starting = undefined;
      if (started !== undefined) await (await started.catch(() => undefined))?.close();
    },
  };
}

/**
 * Core events go to the renderers; the Codex-only ones (its wrapper-cost `context.budgeted`, which
 * carries `engine: 'codex'`, its usage reports and compactions) to `onEngineEvent`, with a note
 * for people.
 */
function route(envelope: CodexEventEnvelope, turn: EngineTurn): void {
  const { event } = envelope;
  if (event.type === 'codex.usage.recorded') {
    turn.onEngineEvent?.(envelope);
    return;
  }
  if (event.type === 'codex.compaction.completed') {
    turn.onEngineEvent?.(envelope);
    turn.onNote?.('codex: Codex compacted its own context');
    return;
  }
  if (event.type === 'context.budgeted' && 'engine' in event) {
    turn.onEngineEvent?.(envelope);
    const history = `${event.historyMessages} history message${event.historyMessages === 1 ? '' : 's'}`;
    turn.onNote?.(`codex: sent Forge's active view, ~${event.estimate.tokens.toLocaleString('en-US')} tokens (${history}${event.hasCheckpoint ? ', a checkpoint' : ''})`);
    return;
  }
  turn.onEvent({ ...envelope, event });
}
