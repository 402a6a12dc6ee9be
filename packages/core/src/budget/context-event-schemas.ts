import { z } from 'zod';
import {
  contextBudgetSchema,
  contextEventModelSchema,
  countSchema,
  estimatorAccuracySchema,
  usageReconciliationSchema,
  viewSummarySchema,
} from '../events/part-schemas.js';

/** Emitted before every provider request: the full budget of the request about to be sent. */
export const contextBudgetedEventSchema = contextBudgetSchema.extend({
  type: z.literal('context.budgeted'),
  /** The model step this request is for (1-based). */
  step: countSchema,
  model: contextEventModelSchema,
  /** Earlier session messages sent verbatim. */
  retainedMessages: countSchema,
  /** What the request carries of the stored conversation: the checkpoint, the messages it covers, those sent verbatim, and none left out. */
  view: viewSummarySchema.optional(),
  instructionsHash: z.string(),
  toolCount: countSchema,
  /** Tokens the advertised tool schemas cost (also in `estimate.categories.toolSchemas`). */
  toolSchemaTokens: z.number(),
});

/**
 * `threshold`: the estimate passed the warning ratio; `over_budget`: it is above the available
 * input although mandatory context fits (history is not shortened in this mode); `provider_usage`:
 * the provider's own input count passed the threshold when the estimate did not;
 * `implausible_usage`: the provider reported a part above its whole (cached above input), clamped.
 */
export const contextWarningReasonSchema = z.enum(['threshold', 'over_budget', 'provider_usage', 'implausible_usage']);

export const contextWarningEventSchema = z.object({
  type: z.literal('context.warning'),
  step: countSchema,
  reason: contextWarningReasonSchema,
  usedTokens: z.number(),
  availableInputTokens: z.number(),
  warnAtTokens: z.number(),
  message: z.string(),
});

/**
 * Why a run stopped before contacting the provider. `mandatory_context`: what must be sent does
 * not fit by itself. `whole_history`: a mode that never compacts (`off`, `warn`, `shadow`) cannot
 * send the whole conversation. The others come from compaction (mode `compact`): `tail_floor` — even with
 * older turns in a checkpoint and the recent tail at its floor it does not fit;
 * `compaction_attempt_limit`, `compaction_same_source`, `compaction_no_progress` — the no-progress
 * guard refused to compact again while the request was still over budget.
 */
export const contextLimitReasonSchema = z.enum([
  'mandatory_context',
  'whole_history',
  'tail_floor',
  'compaction_attempt_limit',
  'compaction_same_source',
  'compaction_no_progress',
]);

/** The run stops before contacting the provider: the request cannot be made to fit. */
export const contextLimitReachedEventSchema = z.object({
  type: z.literal('context.limit_reached'),
  step: countSchema,
  reason: contextLimitReasonSchema,
  message: z.string(),
  budget: contextBudgetSchema,
});

/** Emitted after every completed step: the provider's input count beside the preflight estimate. */
export const contextUsageReconciledEventSchema = usageReconciliationSchema.extend({
  type: z.literal('context.usage.reconciled'),
  step: countSchema,
  model: contextEventModelSchema,
  accuracy: estimatorAccuracySchema,
});

/** Emitted once when a model's estimator has undercounted beyond the buffer too often. */
export const contextEstimatorFlaggedEventSchema = z.object({
  type: z.literal('context.estimator.flagged'),
  step: countSchema,
  model: contextEventModelSchema,
  accuracy: estimatorAccuracySchema,
  message: z.string(),
});

/** The budget events, in the order `ForgeEvent` lists them. */
export const contextEventSchemas = [
  contextBudgetedEventSchema,
  contextWarningEventSchema,
  contextLimitReachedEventSchema,
  contextUsageReconciledEventSchema,
  contextEstimatorFlaggedEventSchema,
] as const;
