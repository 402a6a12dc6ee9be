import type { InstructionSnapshot, Message } from '@forge/core';
import { formatMessageRange } from '@forge/core/budget';
import type { EngineTurn, SessionCompactResult, SessionEngineResult, SessionHandle } from '@forge/sessions';
import type { CodexAppServer, CodexThreadOptions } from '../app-server/client.js';
import type { CodexEventListener } from '../engine/events.js';
import { runCodexTurn, type CodexRunResult } from '../engine/run-codex-turn.js';
import { engineFacts } from './engine-facts.js';
import { route } from './event-routing.js';
import type { CodexSessionEngineOptions } from './session-engine.js';
import { chooseCodexThread, type CodexThreadChoice } from './thread-choice.js';
import { compactBeforeNewThread } from './wrapper-view.js';

/** What a turn runs with: the engine's options, the running server, the thread settings. */
export interface CodexTurnContext {
  readonly options: CodexSessionEngineOptions;
  readonly running: CodexAppServer;
  readonly settings: CodexThreadOptions;
}

/** The thread of unstored turns (`--no-session`). */
export interface UnstoredThread {
  readonly threadId: string;
  readonly model: string | undefined;
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

/**
 * A turn stored nowhere (`--no-session`): it continues the thread of the previous unstored turn
 * while this server still has it loaded, else starts one. Returns the thread to continue next.
 */
export async function runUnstoredTurn(
  context: CodexTurnContext,
  previous: UnstoredThread | undefined,
  turn: EngineTurn,
): Promise<{ readonly result: CodexRunResult; readonly thread: UnstoredThread | undefined }> {
  const { options, running, settings } = context;
  const continuing = previous !== undefined && running.hasLoadedThread(previous.threadId) ? previous : undefined;
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
  const thread =
    result.codex.threadId === '' ? previous : { threadId: result.codex.threadId, model: result.codex.model };
  return { result, thread };
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
      route(envelope, turn, choice.kind);
    },
  });
  for (const message of result.messages.slice(1)) await input.onMessage(message);
  return result;
}

/** A turn of a stored session: picks or starts its Codex thread, runs it as an engine turn, keeps Forge's checkpoint current. */
export async function runSessionTurn(
  context: CodexTurnContext,
  session: SessionHandle,
  turn: EngineTurn,
): Promise<SessionEngineResult> {
  const { options, running, settings } = context;
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

function compactionNote(outcome: Extract<SessionCompactResult['outcome'], { kind: 'compacted' }>): string {
  const count = (value: number) => value.toLocaleString('en-US');
  return (
    `codex: compacted the session before starting a new Codex thread (${outcome.strategy}): messages ${formatMessageRange(0, outcome.tailStart)} are now checkpoint ${outcome.built.id}, ` +
    `~${count(outcome.tokensBefore)} → ~${count(outcome.tokensAfter)} tokens`
  );
}
