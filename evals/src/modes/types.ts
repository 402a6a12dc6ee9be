import type { ContextPolicy, EventEnvelope, Message, RunResult } from '@forge/core';
import type { ExpandedFixture, ExpandedTurn } from '../fixture/expand.js';
import type { EvalWorkspace } from '../workspace/workspace.js';
import type { RecordingModel } from './model-wrappers.js';

/*
 * A mode runner runs one fixture's session in one context mode. The harness drives the turns
 * (changes made outside the agent, restarts, grading); a runner only decides what each turn sends
 * and reports the compactions it made. Adding a mode is writing one runner and listing it in
 * registry.ts.
 */

export type ModeId =
  | 'off'
  | 'warn'
  | 'shadow'
  | 'compact:forge-state'
  | 'compact:model-structured'
  | 'compact:provider-native'
  | 'baseline:full-history'
  | 'baseline:sliding-window'
  | 'baseline:user-summary';

export interface ModeContext {
  readonly fixture: ExpandedFixture;
  readonly workspace: EvalWorkspace;
  /** The agent's model, recorded by the harness. */
  readonly model: RecordingModel;
  /** The model that writes summaries (naive baseline, compactor), recorded separately. */
  readonly summaryModel: RecordingModel;
  /** The fixture's context settings, without the mode. */
  readonly policy: Omit<ContextPolicy, 'mode' | 'fallbackContextWindowTokens'>;
  readonly now: () => number;
  /** Makes the id of each run of the session (reproducible, see `evalRunIds`). */
  readonly newRunId: () => string;
}

/** One compaction a mode made (or, in shadow mode, would have made). */
export interface CompactionRecord {
  readonly turn: number;
  /** Tokens of the view before minus after. */
  readonly reclaimedTokens: number;
  readonly strategy: string;
  /** `applied`, or `shadow` when only planned. */
  readonly kind: 'applied' | 'shadow';
}

export interface ModeTurnResult {
  readonly result: RunResult;
  readonly compactions: readonly CompactionRecord[];
  /** Compactions refused because they would not have reclaimed anything. */
  readonly noProgressStops: number;
  /** Overflow recoveries the mode made (a compaction and one retry after a provider overflow). */
  readonly overflowRecoveries: number;
  /** Compaction strategies that failed (the deterministic one took over, or nothing changed). */
  readonly compactionFailures?: number;
  /** Old tool outputs replaced by a bounded projection. */
  readonly toolOutputProjections?: number;
  /** Checkpoint views and summaries the turn's requests carried: safety checks read them. */
  readonly memoryTexts: readonly string[];
  readonly events: readonly EventEnvelope[];
}

export interface ModeSessionEnd {
  /** The canonical transcript as stored on disk, read back after the session was closed. */
  readonly storedTranscript: readonly Message[];
  /** Every message the runs handed to the store, in order. */
  readonly producedMessages: readonly Message[];
}

export interface ModeSession {
  runTurn(turn: ExpandedTurn): Promise<ModeTurnResult>;
  /**
   * Closes the session and opens it again as a new process would: fresh tools, ledger and
   * approvals. Returns the safety invariants the restart broke (none when state came back intact).
   */
  restart(): Promise<readonly string[]>;
  close(): Promise<ModeSessionEnd>;
}

export interface ModeRunner {
  readonly id: ModeId;
  readonly label: string;
  /** `forge` modes are gated; baselines are shown for comparison. */
  readonly family: 'forge' | 'baseline';
  /** True for modes that change what is sent (the token-reduction and recall gates apply). */
  readonly compacts: boolean;
  /**
   * True when its runs offer the context tools (`checkpoint_note`, `request_compaction`), as the
   * CLI does in modes shadow and compact. Without them every policy agent plays the mode alike.
   */
  readonly offersContextTools: boolean;
  /** How the mode is implemented in this build, shown in reports. */
  readonly implementation: string;
  /** Why the mode cannot run in this build; undefined when it can. */
  readonly unavailable?: string;
  start(context: ModeContext): Promise<ModeSession>;
}
