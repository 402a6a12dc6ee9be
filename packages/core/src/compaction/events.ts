import type { ErrorSummary } from '../events/events.js';
import type { ContextMode } from '../budget/policy.js';
import type { CoverageItem } from '../checkpoint/coverage.js';
import type { CostGateDecision } from './cost-gate.js';

/**
 * What asked for a compaction. `manual`: `/compact` or `forge compact` (explicit intent, no cost
 * gate); `threshold`: the request passed `compactAtRatio` of the available input but still fits
 * (cost gate applies: when it declines, the whole request is sent); `over_budget`: the request
 * does not fit, so not compacting means not sending; `overflow`: the provider refused the request
 * as too long; `model_request`: the model called `request_compaction` (cost gate applies);
 * `checkpoint_changed`: the checkpoint's text changed since the conversation's last request (a
 * fact it holds went SUSPECT), so the provider's cache after the instructions and tool schemas is
 * lost anyway and compacting now may pay (cost gate applies).
 */
export type CompactionTrigger =
  | 'manual'
  | 'threshold'
  | 'over_budget'
  | 'overflow'
  | 'model_request'
  | 'checkpoint_changed';

/** How older context was made smaller: one of the checkpoint strategies, or projecting old tool outputs. */
export type CompactionStrategyName = 'forge-state' | 'model-structured' | 'provider-native' | 'tool-output-projection';

/** `[start, end)` of the canonical transcript. */
export interface TranscriptSpan {
  readonly start: number;
  readonly end: number;
}

/** Who receives the conversation when a compactor model builds the checkpoint, and what it costs. */
export interface CompactorDisclosure {
  readonly provider: string;
  readonly modelId: string;
  /** Estimated input tokens sent to the compactor per compaction. */
  readonly estimatedInputTokens: number;
  /** The output cap of one compaction. */
  readonly maxOutputTokens: number;
}

export type ContextCompactionStartedEvent = {
  readonly type: 'context.compaction.started';
  /** The model step it happens before; 0 between turns. */
  readonly step: number;
  readonly trigger: CompactionTrigger;
  readonly strategy: CompactionStrategyName;
  readonly mode: ContextMode;
  /** Estimate of the whole request before compaction. */
  readonly tokensBefore: number;
  /** Messages to summarize. */
  readonly sourceRange: TranscriptSpan;
  readonly compactor?: CompactorDisclosure;
  /** What the user asked the compaction to keep in focus (`/compact <focus>`). */
  readonly focus?: string;
};

export type ContextCompactionCompletedEvent = {
  readonly type: 'context.compaction.completed';
  readonly step: number;
  readonly trigger: CompactionTrigger;
  readonly strategy: CompactionStrategyName;
  readonly mode: ContextMode;
  /** False in shadow mode: built and validated, never made live. */
  readonly installed: boolean;
  /** True when the current checkpoint already stood for this range and was kept. */
  readonly reused: boolean;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly reclaimedTokens: number;
  /** Messages the checkpoint summarizes (absent for tool-output projection, which summarizes nothing). */
  readonly sourceRange?: TranscriptSpan;
  /** First message sent verbatim after the checkpoint. */
  readonly tailStart?: number;
  readonly checkpointId?: string;
  readonly checkpointHash?: string;
  /** Estimated tokens of the rendered checkpoint view. */
  readonly viewTokens?: number;
  /**
   * Tokens of history and this run's messages the request sends verbatim after this compaction or
   * projection (projected outputs not counted), by the model adapter's estimator.
   */
  readonly keptVerbatimTokens?: number;
  /** Tool outputs replaced by a bounded projection (strategy `tool-output-projection`). */
  readonly projectedOutputs?: number;
  /** Their tool call ids, so a session can keep sending them projected on later turns. */
  readonly projectedToolCallIds?: readonly string[];
  /** Workspace-relative paths of the files the new forge-state checkpoint holds in hand (its working set), most recent first. */
  readonly filesInHand?: readonly string[];
  /** The strategy that failed before this one was used instead. */
  readonly fallbackFrom?: CompactionStrategyName;
  readonly costGate?: CostGateDecision;
  readonly focus?: string;
};

export type ContextCompactionFailedEvent = {
  readonly type: 'context.compaction.failed';
  readonly step: number;
  readonly trigger: CompactionTrigger;
  readonly strategy: CompactionStrategyName;
  /** Machine-readable cause: `refused`, `truncated`, `schema`, `validation`, `timeout`, `cancelled`, `persistence`, `provider`. */
  readonly reason: string;
  readonly message: string;
  readonly error: ErrorSummary;
  /** What happens next: the deterministic strategy is tried, or nothing changes. */
  readonly fallback: 'forge-state' | 'none';
  /** The checkpoint that stays current, if the session has one. */
  readonly previousCheckpointId?: string;
};

/**
 * A compaction that was considered and not done: `cost_gate` (savings too small for the cost),
 * `nothing_to_compact`, `reused` (the current checkpoint still stands for the range), `shadow`
 * (built and validated, never installed; `wouldReclaimTokens` says what it would have saved),
 * `guard` (the no-progress guard refused another attempt), `mandatory_context` (history is not
 * what fills the window), `no_savings` (the checkpoint would not be smaller than what it replaces).
 */
export type ContextCompactionSkippedEvent = {
  readonly type: 'context.compaction.skipped';
  readonly step: number;
  readonly trigger: CompactionTrigger;
  readonly reason:
    | 'cost_gate'
    | 'nothing_to_compact'
    | 'no_savings'
    | 'reused'
    | 'shadow'
    | 'guard'
    | 'mandatory_context';
  readonly message: string;
  readonly strategy?: CompactionStrategyName;
  readonly tokensBefore?: number;
  readonly wouldReclaimTokens?: number;
  readonly sourceRange?: TranscriptSpan;
  readonly checkpointId?: string;
  readonly checkpointHash?: string;
  readonly costGate?: CostGateDecision;
};

/** Version of the `context.checkpoint.coverage` payload; a change to its fields makes a new one. */
export const CHECKPOINT_COVERAGE_EVENT_VERSION = 1;

/** Most items a coverage event lists; `missingCount` has them all. */
export const COVERAGE_EVENT_MAX_ITEMS = 32;

/**
 * The coverage check found that a checkpoint missed something the record of its summarized
 * messages holds (a user request, a stated constraint, a failed step, an edited file), before it
 * was installed. `repaired`: the items were added and the repaired checkpoint (`checkpointId`) is
 * the one used. `refused`: they could not be added within the caps; the checkpoint was not used
 * (`fallback` says what happened instead).
 */
export type ContextCheckpointCoverageEvent = {
  readonly type: 'context.checkpoint.coverage';
  readonly version: typeof CHECKPOINT_COVERAGE_EVENT_VERSION;
  readonly step: number;
  readonly trigger: CompactionTrigger;
  readonly strategy: CompactionStrategyName;
  readonly outcome: 'repaired' | 'refused';
  /** What was missing (repaired) or is still missing (refused), at most {@link COVERAGE_EVENT_MAX_ITEMS}. */
  readonly items: readonly CoverageItem[];
  readonly missingCount: number;
  /** The repaired checkpoint. */
  readonly checkpointId?: string;
  /** After a refusal: the deterministic checkpoint is tried instead, or nothing is installed. */
  readonly fallback?: 'forge-state' | 'none';
};

/** Events of compaction: started, then completed or failed; or skipped with the reason; and the coverage check's repairs and refusals. */
export type CompactionEvent =
  | ContextCompactionStartedEvent
  | ContextCompactionCompletedEvent
  | ContextCompactionFailedEvent
  | ContextCompactionSkippedEvent
  | ContextCheckpointCoverageEvent;
