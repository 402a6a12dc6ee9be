import {
  addUsage,
  emptyUsage,
  EVENT_SCHEMA_VERSION,
  type ContextPolicy,
  type InstructionSnapshot,
  type Message,
  type RunResult,
  type Usage,
} from '@forge/core';
import { formatMessageRange } from '@forge/core/budget';
import {
  CodexAppServer,
  CodexBinaryMissingError,
  CodexVersionError,
  compactCodexThread,
  resolveCodexBinary,
  runCodexTurn,
  type CodexCompactionResult,
  type CodexEngineEvent,
  type CodexEventEnvelope,
  type CodexEventListener,
  type CodexRunResult,
  type CodexSandboxMode,
  type CodexThreadOptions,
  type CodexTokenUsageRecord,
} from '@forge/codex';
import type { EngineRunFacts } from '@forge/persistence';
import type { SessionCompactResult, SessionHandle } from '@forge/sessions';
import { randomUUID } from 'node:crypto';
import {
  COMMAND_MARKER_VARIABLE,
  CommandProcesses,
  type ApprovalProfile,
  type SessionApprovalGate,
} from '@forge/tools';
import { UsageError } from '../cli-error.js';
import { forgeVersion } from '../version.js';
import { chooseCodexThread, type CodexThreadChoice } from './codex-thread-choice.js';
import { compactBeforeNewThread } from './codex-wrapper-view.js';
import type { EngineTurn, EngineTurnOutcome, TurnEngine } from './turn-engine.js';

export interface CodexEngineOptions {
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
}

/**
 * Turns a failure to find or start Codex into the CLI's one-line errors: a missing binary or an
 * untested version is a configuration problem (exit 2); anything else is returned unchanged.
 */
export function codexStartError(error: unknown): unknown {
  if (CodexBinaryMissingError.isInstance(error) || CodexVersionError.isInstance(error))
    return new UsageError(error.message);
  return error;
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
export function createCodexEngine(options: CodexEngineOptions): TurnEngine {
  const env = { ...options.env };
  try {
    resolveCodexBinary({ env });
  } catch (error) {
    throw codexStartError(error);
  }
  let starting: Promise<CodexAppServer> | undefined;
  let closed = false;
  /** One per server started: settles once what it started is gone after it exited. */
  const sweeps: Promise<unknown>[] = [];
  /** The thread of unstored turns (`--no-session`), continued for as long as this server runs. */
  let unstoredThread: { readonly threadId: string; readonly model: string | undefined } | undefined;

  /** The running server, started on first use and again if the previous one exited (the REPL carries on). */
  const server = async (): Promise<CodexAppServer> => {
    if (closed) throw new Error('The Codex engine was closed; this is a bug in Forge.');
    const previous = starting === undefined ? undefined : await starting.catch(() => undefined);
    if (previous?.exitReason !== undefined) starting = undefined;
    starting ??= startEndingItsCommands(env, sweeps).catch((error: unknown) => {
      starting = undefined;
      throw codexStartError(error);
    });
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
      if (session === undefined) {
        const continuing =
          unstoredThread !== undefined && running.hasLoadedThread(unstoredThread.threadId) ? unstoredThread : undefined;
        const choice: CodexThreadChoice =
          continuing === undefined
            ? { kind: 'new' }
            : {
                kind: 'continue',
                how: 'continued',
                threadId: continuing.threadId,
                model: continuing.model ?? settings.model ?? 'codex-default',
                rolloutPath: null,
              };
        const result = await turnOn(running, turn, settings, {
          instructions: await options.instructions(),
          history: [],
          choice,
          onMessage: async () => {},
        });
        if (result.codex.threadId !== '')
          unstoredThread = { threadId: result.codex.threadId, model: result.codex.model };
        return { result, warnings: [] };
      }
      return runSessionTurn({ options, running, settings }, session, turn);
    },
    async compact(session) {
      const running = await server();
      const instructions = await options.instructions();
      const choice = await chooseCodexThread({
        session: session.transcript(),
        server: running,
        settings,
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

/** What one Codex turn starts from: the view to send, the thread choice, and where its messages and events go. */
interface CodexTurnInput {
  readonly instructions: InstructionSnapshot;
  readonly history: readonly Message[];
  /** The session's checkpoint view: the turns before `history`, summarized. */
  readonly checkpoint?: string;
  readonly choice: CodexThreadChoice;
  readonly runId?: string;
  readonly sessionId?: string;
  readonly onMessage: (message: Message) => Promise<void>;
  readonly trace?: CodexEventListener;
}

/** Runs one turn on the running server: the request is stored first, then Codex's messages as it finishes. */
async function turnOn(
  running: CodexAppServer,
  turn: EngineTurn,
  settings: CodexThreadOptions,
  input: CodexTurnInput,
): Promise<CodexRunResult> {
  // Stored before Codex starts, so a crash mid-turn still leaves the request in the session.
  await input.onMessage({ role: 'user', content: turn.request });
  const { choice } = input;
  const result = await runCodexTurn({
    server: running,
    ...(choice.kind === 'continue'
      ? {
          thread: { threadId: choice.threadId },
          threadModel: choice.model,
          selection: { how: choice.how },
          view: { instructions: input.instructions, history: [] },
        }
      : {
          thread: settings,
          selection: {
            how: 'started' as const,
            ...(choice.fallback === undefined ? {} : { fallback: choice.fallback }),
          },
          view: {
            instructions: input.instructions,
            history: input.history,
            ...(input.checkpoint === undefined ? {} : { checkpoint: input.checkpoint }),
          },
        }),
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
}

/** A turn of a stored session: picks or starts its Codex thread, runs it as an engine turn, keeps Forge's checkpoint current. */
async function runSessionTurn(
  engine: {
    readonly options: CodexEngineOptions;
    readonly running: CodexAppServer;
    readonly settings: CodexThreadOptions;
  },
  session: SessionHandle,
  turn: EngineTurn,
): Promise<EngineTurnOutcome> {
  const { options, running, settings } = engine;
  const instructions = await options.instructions();
  const choice = await chooseCodexThread({
    session: session.transcript(),
    server: running,
    settings,
    instructionsHash: instructions.hash,
  });
  if (choice.kind === 'new') {
    const compacted = await compactBeforeNewThread({
      session,
      policy: options.context,
      instructions,
      request: turn.request,
      modelLabel: `codex:${options.model ?? 'codex-default'}`,
    });
    if (compacted?.outcome.kind === 'compacted') turn.onNote?.(compactionNote(compacted.outcome));
  }
  const stored = await session.runEngineTurn({
    instructions,
    model: { provider: 'codex', modelId: options.model ?? 'codex-default' },
    run: async (input) => {
      const result = await turnOn(running, turn, settings, {
        instructions: input.instructions,
        history: input.history,
        ...(input.checkpoint === undefined ? {} : { checkpoint: input.checkpoint }),
        choice,
        runId: input.runId,
        sessionId: input.sessionId,
        onMessage: input.onMessage,
        trace: input.onEvent,
      });
      return { result, engineFacts: engineFacts(result, choice.kind === 'continue' ? choice.rolloutPath : null) };
    },
  });
  try {
    await session.checkpointWholeTranscript();
  } catch (error) {
    turn.onNote?.(
      `codex: Forge's checkpoint of the session was not updated (${error instanceof Error ? error.message : String(error)}); another engine would continue from the previous one`,
    );
  }
  return { result: stored.result, warnings: stored.warnings };
}

type EngineRunInput = Parameters<Parameters<SessionHandle['runEngineTurn']>[0]['run']>[0];

/** The engine turn `/compact` records: Codex compacts the session's thread; its events, usage and facts are the run's. */
async function runCodexCompaction(
  context: {
    readonly running: CodexAppServer;
    readonly choice: Extract<CodexThreadChoice, { kind: 'continue' }>;
    readonly instructions: InstructionSnapshot;
    readonly input: EngineRunInput;
  },
  onCompacted: (compacted: CodexCompactionResult) => void,
) {
  const { running, choice, instructions, input } = context;
  const envelope = envelopes(input.runId, input.sessionId);
  const compacted = await compactCodexThread(running, choice.threadId);
  onCompacted(compacted);
  input.onEvent(
    envelope({
      type: 'codex.compaction.completed',
      compaction: { turnId: compacted.turnId, itemId: compacted.itemId },
    }),
  );
  for (const usage of compacted.tokenUsage) input.onEvent(envelope({ type: 'codex.usage.recorded', usage }));
  const usage = compacted.tokenUsage.reduce((total, record) => addUsage(total, usageOfReport(record)), emptyUsage);
  const engineFacts = {
    name: 'codex',
    version: running.info.version,
    thread: { id: choice.threadId, model: choice.model, rolloutPath: choice.rolloutPath },
    ...contextOf(compacted.tokenUsage),
    compactions: 1,
  };
  const result: RunResult = {
    runId: input.runId,
    status: 'completed',
    messages: [],
    text: '',
    steps: compacted.tokenUsage.length,
    usage,
    instructionsHash: instructions.hash,
  };
  return { result, engineFacts };
}

/**
 * Starts the App Server in a session of its own, every process it starts marked (the marker
 * variable of Forge's own commands), and once it exits — closed, or killed mid-turn — ends
 * whatever of its commands is left, so a `kill -9` of codex orphans nothing.
 */
async function startEndingItsCommands(
  env: Readonly<Record<string, string | undefined>>,
  sweeps: Promise<unknown>[],
): Promise<CodexAppServer> {
  const marker = randomUUID();
  const running = await CodexAppServer.start({
    env: { ...env, [COMMAND_MARKER_VARIABLE]: marker },
    detached: true,
    clientInfo: { name: 'forge', version: forgeVersion() },
  });
  const pid = running.processId;
  if (pid !== undefined) {
    const processes = new CommandProcesses(pid, marker);
    sweeps.push(running.whenExited().then(() => processes.sweep()));
  }
  return running;
}

function compactionNote(outcome: Extract<SessionCompactResult['outcome'], { kind: 'compacted' }>): string {
  const count = (value: number) => value.toLocaleString('en-US');
  return (
    `codex: compacted the session before starting a new Codex thread (${outcome.strategy}): messages ${formatMessageRange(0, outcome.tailStart)} are now checkpoint ${outcome.built.id}, ` +
    `~${count(outcome.tokensBefore)} → ~${count(outcome.tokensAfter)} tokens`
  );
}

/** What the run records about Codex: its thread (to continue it next turn), its own context report, its compactions. */
function engineFacts(result: CodexRunResult, knownRolloutPath: string | null): EngineRunFacts {
  const { codex } = result;
  return {
    name: 'codex',
    version: codex.codexVersion,
    ...(codex.threadId === ''
      ? {}
      : {
          thread: {
            id: codex.threadId,
            model: codex.model ?? 'codex-default',
            rolloutPath: codex.rolloutPath ?? knownRolloutPath,
          },
        }),
    ...contextOf(codex.tokenUsage),
    compactions: codex.compactions.length,
  };
}

function contextOf(reports: readonly CodexTokenUsageRecord[]): Pick<EngineRunFacts, 'context'> {
  const latest = reports.at(-1);
  if (latest === undefined) return {};
  return {
    context: {
      inputTokens: latest.last.inputTokens,
      cachedInputTokens: latest.last.cachedInputTokens,
      modelContextWindow: latest.modelContextWindow,
    },
  };
}

function usageOfReport(record: CodexTokenUsageRecord): Usage {
  return {
    inputTokens: record.last.inputTokens,
    cacheReadTokens: record.last.cachedInputTokens,
    cacheWriteTokens: undefined,
    outputTokens: record.last.outputTokens,
    reasoningTokens: record.last.reasoningOutputTokens,
  };
}

/** Numbered envelopes for the events a compaction run writes to its trace (it has no `runCodexTurn` emitter). */
function envelopes(runId: string, sessionId: string): (event: CodexEngineEvent) => CodexEventEnvelope {
  let sequence = 0;
  return (event) => ({
    schemaVersion: EVENT_SCHEMA_VERSION,
    runId,
    sessionId,
    sequence: sequence++,
    timestamp: new Date().toISOString(),
    event,
  });
}

/**
 * Core events go to the renderers; the Codex-only ones (its wrapper cost `codex.context.budgeted`,
 * its usage reports and compactions) to `onEngineEvent`, with a note for people.
 */
function route(envelope: CodexEventEnvelope, turn: EngineTurn): void {
  const { event } = envelope;
  if (event.type === 'codex.usage.recorded') {
    turn.onEngineEvent?.(envelope);
    return;
  }
  if (event.type === 'codex.thread.selected') {
    turn.onEngineEvent?.(envelope);
    if (event.fallback !== undefined)
      turn.onNote?.(`codex: started a new Codex thread with Forge's bounded view: ${event.fallback.message}`);
    return;
  }
  if (event.type === 'codex.compaction.completed') {
    turn.onEngineEvent?.(envelope);
    turn.onNote?.('codex: Codex compacted its own context');
    return;
  }
  if (event.type === 'codex.context.budgeted') {
    turn.onEngineEvent?.(envelope);
    const tokens = `~${event.estimate.tokens.toLocaleString('en-US')} tokens`;
    if (event.input === 'request') {
      turn.onNote?.(
        `codex: sent only the request to the session's Codex thread, ${tokens} (Codex holds the earlier turns)`,
      );
      return;
    }
    const history = `${event.historyMessages} history message${event.historyMessages === 1 ? '' : 's'}`;
    turn.onNote?.(
      `codex: sent Forge's active view, ${tokens} (${history}${event.hasCheckpoint ? ', a checkpoint' : ''})`,
    );
    return;
  }
  turn.onEvent({ ...envelope, event });
}
