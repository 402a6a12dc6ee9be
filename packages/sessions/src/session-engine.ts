import type { ApprovalGate, ContextMode, EventListener, RunResult } from '@forge/core';
import type { EngineEventListener } from '@forge/persistence';
import type { SessionHandle } from './session-turn.js';
import type { SessionTurnWarning } from './session-turn-types.js';

/** One user turn, as `forge run` and the REPL hand it to an engine. */
export interface EngineTurn {
  readonly request: string;
  /** Decides the engine's tool calls (for Codex: its command and patch approval requests). */
  readonly approvals: ApprovalGate;
  readonly signal: AbortSignal;
  /** Core events, in order: what the text and JSON renderers read. */
  readonly onEvent: EventListener;
  /**
   * Events only this engine emits, interleaved in order with `onEvent`'s (Codex: the wrapper's
   * cost as `codex.context.budgeted`, `codex.usage.recorded`, `codex.compaction.completed`).
   */
  readonly onEngineEvent?: EngineEventListener;
  /** Short notes for people about what the engine did (Codex: the wrapper's cost, a compaction it made). */
  readonly onNote?: (text: string) => void;
}

/** What an engine that compacts its own context did for `/compact` and `forge compact`. */
export type EngineCompactOutcome =
  | { readonly kind: 'compacted'; readonly threadId: string; readonly itemId: string }
  | { readonly kind: 'nothing'; readonly reason: string };

/** What one turn of a `SessionEngine` gives back. */
export interface SessionEngineResult {
  readonly result: RunResult;
  /** What the session noticed while running the turn (a trace that could not be written). */
  readonly warnings: readonly SessionTurnWarning[];
}

/**
 * An engine that runs user turns of a session: Forge's own loop (the CLI's native engine) or
 * Codex (`@forge/codex/session-engine`). Each engine sends the view the session selects (see
 * `SessionHandle.selectView`: the checkpoint in mode compact and every stored message after it,
 * nothing left out) and stores the turn through the same session bookkeeping. A host adds what
 * only some engines offer (switching models, a context report).
 */
export interface SessionEngine<Name extends string = string> {
  readonly name: Name;
  /** How the banner and the footer name the model, e.g. `scripted:demo` or `codex:gpt-5.5`. */
  readonly modelLabel: string;
  /** The context mode of the next turn; undefined when the engine manages its own context (Codex). */
  readonly contextMode: ContextMode | undefined;
  /** The workspace the engine's tools work in. */
  readonly root: string;
  /** Runs one turn as a turn of `session`, or unstored without one (`--no-session`). */
  runTurn(session: SessionHandle | undefined, turn: EngineTurn): Promise<SessionEngineResult>;
  /**
   * Compacts the session through the engine's own context management (Codex:
   * `thread/compact/start` on the session's thread), recorded in the session as an engine-owned
   * compaction. Absent when Forge compacts the session itself (native).
   */
  compact?(session: SessionHandle): Promise<EngineCompactOutcome>;
  /**
   * Starts what the engine needs now instead of at the first turn (the Codex App Server), so a
   * failure to start stops a command before it stores anything.
   */
  start(): Promise<void>;
  /** Releases what the engine started (the Codex App Server). Safe to call twice. */
  close(): Promise<void>;
}
