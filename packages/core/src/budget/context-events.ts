import type { EstimatorAccuracy } from './accuracy-tracker.js';
import type { ContextBudget } from './budget.js';
import type { ViewSummary } from '../view/request-view.js';
import type { UsageReconciliation } from './reconcile.js';

/** Which model a context event is about. */
export type ContextEventModel = {
  readonly provider: string;
  readonly modelId: string;
};

/** Emitted before every provider request: the full budget of the request about to be sent. */
export type ContextBudgetedEvent = ContextBudget & {
  readonly type: 'context.budgeted';
  /** The model step this request is for (1-based). */
  readonly step: number;
  readonly model: ContextEventModel;
  /** Earlier session messages sent verbatim. */
  readonly retainedMessages: number;
  /** What the request carries of the stored conversation: the checkpoint, the messages it covers, those sent verbatim, and none left out. */
  readonly view?: ViewSummary;
  readonly instructionsHash: string;
  readonly toolCount: number;
  /** Tokens the advertised tool schemas cost (also in `estimate.categories.toolSchemas`). */
  readonly toolSchemaTokens: number;
};

/**
 * `threshold`: the estimate passed the warning ratio; `over_budget`: it is above the available
 * input although mandatory context fits (history is not shortened in this mode); `provider_usage`:
 * the provider's own input count passed the threshold when the estimate did not;
 * `implausible_usage`: the provider reported a part above its whole (cached above input), clamped.
 */
export type ContextWarningReason = 'threshold' | 'over_budget' | 'provider_usage' | 'implausible_usage';

export type ContextWarningEvent = {
  readonly type: 'context.warning';
  readonly step: number;
  readonly reason: ContextWarningReason;
  readonly usedTokens: number;
  readonly availableInputTokens: number;
  readonly warnAtTokens: number;
  readonly message: string;
};

/**
 * Why a run stopped before contacting the provider. `mandatory_context`: what must be sent does
 * not fit by itself. `whole_history`: a mode that never compacts (`off`, `warn`, `shadow`) cannot
 * send the whole conversation. The others come from compaction (mode `compact`): `tail_floor` — even with
 * older turns in a checkpoint and the recent tail at its floor it does not fit;
 * `compaction_attempt_limit`, `compaction_same_source`, `compaction_no_progress` — the no-progress
 * guard refused to compact again while the request was still over budget.
 */
export type ContextLimitReason =
  | 'mandatory_context'
  | 'whole_history'
  | 'tail_floor'
  | 'compaction_attempt_limit'
  | 'compaction_same_source'
  | 'compaction_no_progress';

/** The run stops before contacting the provider: the request cannot be made to fit. */
export type ContextLimitReachedEvent = {
  readonly type: 'context.limit_reached';
  readonly step: number;
  readonly reason: ContextLimitReason;
  readonly message: string;
  readonly budget: ContextBudget;
};

/** Emitted after every completed step: the provider's input count beside the preflight estimate. */
export type ContextUsageReconciledEvent = UsageReconciliation & {
  readonly type: 'context.usage.reconciled';
  readonly step: number;
  readonly model: ContextEventModel;
  readonly accuracy: EstimatorAccuracy;
};

/** Emitted once when a model's estimator has undercounted beyond the buffer too often. */
export type ContextEstimatorFlaggedEvent = {
  readonly type: 'context.estimator.flagged';
  readonly step: number;
  readonly model: ContextEventModel;
  readonly accuracy: EstimatorAccuracy;
  readonly message: string;
};

export type ContextEvent =
  | ContextBudgetedEvent
  | ContextWarningEvent
  | ContextLimitReachedEvent
  | ContextUsageReconciledEvent
  | ContextEstimatorFlaggedEvent;
