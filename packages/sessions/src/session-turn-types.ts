import type {
  ContextMode,
  InstructionSnapshot,
  Message,
  OpaqueProviderState,
  RunAgentOptions,
  RunResult,
} from '@forge/core';
import type { ArtifactHashSource } from './checkpoint-install.js';
import type {
  CheckpointSent,
  EngineRunFacts,
  SessionWriterOptions,
  SessionRepairWarning,
  SessionWarning,
  EngineEventListener,
} from '@forge/persistence';
import type { SessionCompactionOptions } from './session-compaction.js';
import type { SessionView, SessionViewOptions } from './session-view.js';

/** Something opening a session or running a turn noticed; nothing a warning names was lost. */
export type SessionTurnWarning =
  | SessionWarning
  | SessionRepairWarning
  | { readonly code: 'trace_failed'; readonly message: string };

/**
 * `runAgent` options for one turn, less what the session provides, plus how to render the view
 * and compact. The view follows `context.mode` (see `SessionHandle.runTurn`).
 */
export type SessionTurnOptions = Omit<RunAgentOptions, 'session' | 'runId' | 'compactionGuard'> &
  Omit<SessionViewOptions, 'mode'> & {
    /**
     * How the session compacts. Automatic compaction follows `context.mode`: `shadow` builds and
     * validates checkpoints without installing them, `compact` installs them and sends the
     * current checkpoint; `off` and `warn` never compact and send every stored message.
     */
    readonly compaction?: SessionCompactionOptions;
    /** Re-hashes the files checkpoint facts depend on, so facts about files changed outside the agent show SUSPECT. */
    readonly artifactHashes?: ArtifactHashSource;
  };

/** What an engine receives for one turn of a session, besides what it was set up with. */
export interface SessionEngineInput {
  /** The instructions, loaded once and frozen for the run. */
  readonly instructions: InstructionSnapshot;
  /** Every stored message after the checkpoint (all of them without one): the same view `runAgent` turns get. */
  readonly history: readonly Message[];
  /** The current checkpoint's rendered view, when the session has one: send it before `history`. */
  readonly checkpoint?: string;
  /** Provider-native state for the model the turn is recorded with, when the checkpoint has one. */
  readonly nativeState?: OpaqueProviderState;
  /** The whole view the turn starts with: what is summarized and what is sent (nothing is left out). */
  readonly view: SessionView;
  readonly runId: string;
  readonly sessionId: string;
  /** Appends a message to the transcript durably; await it before producing the next one. */
  readonly onMessage: (message: Message) => Promise<void>;
  /** Writes an event to the run's trace and forwards it to the turn's `onEvent`. */
  readonly onEvent: EngineEventListener;
}

/** What an engine hands back for one turn; the session records it with the run's end. */
export interface EngineTurnOutcome {
  readonly result: RunResult;
  /** What the engine reports about the run (its thread, its own context report). */
  readonly engineFacts?: EngineRunFacts;
  /** The checkpoint the run's last model request carried, so the next turn can tell whether it renders differently. */
  readonly checkpointSent?: CheckpointSent;
}

/**
 * One turn run by an engine other than `runAgent` (the Codex engine, for instance), with the
 * same session bookkeeping: view selection, run start and end records, durable messages, trace.
 */
export interface SessionEngineTurnOptions extends Omit<SessionViewOptions, 'mode'> {
  /** Which view the engine is given (see `SessionViewOptions.mode`); default `compact`: the current checkpoint and every message after it. */
  readonly mode?: ContextMode;
  /** Recorded with the run's start, as a native run records its model adapter's. */
  readonly model: { readonly provider: string; readonly modelId: string };
  readonly instructions: InstructionSnapshot | (() => Promise<InstructionSnapshot>);
  /** Re-hashes the files checkpoint facts depend on before the view is rendered (see `ArtifactHashSource`). */
  readonly artifactHashes?: ArtifactHashSource;
  /** Receives every envelope the engine emits, after the trace. */
  readonly onEvent?: EngineEventListener;
  /**
   * Runs the turn. The contract is `runAgent`'s: model and tool failures end the run with a status
   * in the result; a rejection means the host failed, and is recorded as a failed run.
   */
  readonly run: (input: SessionEngineInput) => Promise<EngineTurnOutcome>;
}

export interface SessionTurnResult {
  readonly result: RunResult;
  readonly sessionId: string;
  readonly runId: string;
  /** `runs/<run-id>.jsonl` in FORGE_HOME. */
  readonly tracePath: string;
  /** The view the turn started with (its checkpoint, if any, with its rendered text). */
  readonly view: Omit<SessionView, 'history' | 'nativeState'>;
  readonly warnings: readonly SessionTurnWarning[];
}

/** Where the session is: an existing one to continue, or a new one to create for a workspace. */
export type OpenSessionHandleOptions = SessionWriterOptions & {
  readonly home: string;
  /** Makes the id of each turn's run; default a new sortable one (`run_…`). Evals pass a deterministic one. */
  readonly newRunId?: () => string;
  /**
   * Opens an existing session as a window: only its current checkpoint and the records after it
   * are read (what turns in mode `compact` send); whatever needs earlier messages reads them then.
   */
  readonly window?: boolean;
} & (
    | { readonly sessionId: string; readonly workspaceRoot?: undefined }
    | { readonly sessionId?: undefined; readonly workspaceRoot: string | null }
  );
