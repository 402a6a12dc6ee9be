import { z } from 'zod';
import {
  contextModeSchema,
  costGateDecisionSchema,
  countSchema,
  coverageItemSchema,
  errorSummarySchema,
} from '../events/part-schemas.js';

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
export const compactionTriggerSchema = z.enum([
  'manual',
  'threshold',
  'over_budget',
  'overflow',
  'model_request',
  'checkpoint_changed',
]);

/** How older context was made smaller: one of the checkpoint strategies, or projecting old tool outputs. */
export const compactionStrategyNameSchema = z.enum([
  'forge-state',
  'model-structured',
  'provider-native',
  'tool-output-projection',
]);

/** `[start, end)` of the canonical transcript. */
export const transcriptSpanSchema = z.object({ start: countSchema, end: countSchema });

/** Who receives the conversation when a compactor model builds the checkpoint, and what it costs. */
export const compactorDisclosureSchema = z.object({
  provider: z.string(),
  modelId: z.string(),
  /** Estimated input tokens sent to the compactor per compaction. */
  estimatedInputTokens: z.number(),
  /** The output cap of one compaction. */
  maxOutputTokens: z.number(),
});

export const contextCompactionStartedEventSchema = z.object({
  type: z.literal('context.compaction.started'),
  /** The model step it happens before; 0 between turns. */
  step: countSchema,
  trigger: compactionTriggerSchema,
  strategy: compactionStrategyNameSchema,
  mode: contextModeSchema,
  /** Estimate of the whole request before compaction. */
  tokensBefore: z.number(),
  /** Messages to summarize. */
  sourceRange: transcriptSpanSchema,
  compactor: compactorDisclosureSchema.optional(),
  /** What the user asked the compaction to keep in focus (`/compact <focus>`). */
  focus: z.string().optional(),
});

export const contextCompactionCompletedEventSchema = z.object({
  type: z.literal('context.compaction.completed'),
  step: countSchema,
  trigger: compactionTriggerSchema,
  strategy: compactionStrategyNameSchema,
  mode: contextModeSchema,
  /** False in shadow mode: built and validated, never made live. */
  installed: z.boolean(),
  /** True when the current checkpoint already stood for this range and was kept. */
  reused: z.boolean(),
  tokensBefore: z.number(),
  tokensAfter: z.number(),
  reclaimedTokens: z.number(),
  /** Messages the checkpoint summarizes (absent for tool-output projection, which summarizes nothing). */
  sourceRange: transcriptSpanSchema.optional(),
  /** First message sent verbatim after the checkpoint. */
  tailStart: countSchema.optional(),
  checkpointId: z.string().optional(),
  checkpointHash: z.string().optional(),
  /** Estimated tokens of the rendered checkpoint view. */
  viewTokens: z.number().optional(),
  /**
   * Tokens of history and this run's messages the request sends verbatim after this compaction or
   * projection (projected outputs not counted), by the model adapter's estimator.
   */
  keptVerbatimTokens: z.number().optional(),
  /** Tool outputs replaced by a bounded projection (strategy `tool-output-projection`). */
  projectedOutputs: countSchema.optional(),
  /** Their tool call ids, so a session can keep sending them projected on later turns. */
  projectedToolCallIds: z.array(z.string()).readonly().optional(),
  /** Workspace-relative paths of the files the new forge-state checkpoint holds in hand (its working set), most recent first. */
  filesInHand: z.array(z.string()).readonly().optional(),
  /** The strategy that failed before this one was used instead. */
  fallbackFrom: compactionStrategyNameSchema.optional(),
  costGate: costGateDecisionSchema.optional(),
  focus: z.string().optional(),
});

export const contextCompactionFailedEventSchema = z.object({
  type: z.literal('context.compaction.failed'),
  step: countSchema,
  trigger: compactionTriggerSchema,
  strategy: compactionStrategyNameSchema,
  /** Machine-readable cause: `refused`, `truncated`, `schema`, `validation`, `timeout`, `cancelled`, `persistence`, `provider`. */
  reason: z.string(),
  message: z.string(),
  error: errorSummarySchema,
  /** What happens next: the deterministic strategy is tried, or nothing changes. */
  fallback: z.enum(['forge-state', 'none']),
  /** The checkpoint that stays current, if the session has one. */
  previousCheckpointId: z.string().optional(),
});

/**
 * A compaction that was considered and not done: `cost_gate` (savings too small for the cost),
 * `nothing_to_compact`, `reused` (the current checkpoint still stands for the range), `shadow`
 * (built and validated, never installed; `wouldReclaimTokens` says what it would have saved),
 * `guard` (the no-progress guard refused another attempt), `mandatory_context` (history is not
 * what fills the window), `no_savings` (the checkpoint would not be smaller than what it replaces).
 */
export const contextCompactionSkippedEventSchema = z.object({
  type: z.literal('context.compaction.skipped'),
  step: countSchema,
  trigger: compactionTriggerSchema,
  reason: z.enum(['cost_gate', 'nothing_to_compact', 'no_savings', 'reused', 'shadow', 'guard', 'mandatory_context']),
  message: z.string(),
  strategy: compactionStrategyNameSchema.optional(),
  tokensBefore: z.number().optional(),
  wouldReclaimTokens: z.number().optional(),
  sourceRange: transcriptSpanSchema.optional(),
  checkpointId: z.string().optional(),
  checkpointHash: z.string().optional(),
  costGate: costGateDecisionSchema.optional(),
});

/** Version of the `context.checkpoint.coverage` payload; a change to its fields makes a new one. */
export const CHECKPOINT_COVERAGE_EVENT_VERSION = 1;

/**
 * The coverage check found that a checkpoint missed something the record of its summarized
 * messages holds (a user request, a stated constraint, a failed step, an edited file), before it
 * was installed. `repaired`: the items were added and the repaired checkpoint (`checkpointId`) is
 * the one used. `refused`: they could not be added within the caps; the checkpoint was not used
 * (`fallback` says what happened instead).
 */
export const contextCheckpointCoverageEventSchema = z.object({
  type: z.literal('context.checkpoint.coverage'),
  version: z.literal(CHECKPOINT_COVERAGE_EVENT_VERSION),
  step: countSchema,
  trigger: compactionTriggerSchema,
  strategy: compactionStrategyNameSchema,
  outcome: z.enum(['repaired', 'refused']),
  /** What was missing (repaired) or is still missing (refused), at most `COVERAGE_EVENT_MAX_ITEMS`. */
  items: z.array(coverageItemSchema).readonly(),
  missingCount: countSchema,
  /** The repaired checkpoint. */
  checkpointId: z.string().optional(),
  /** After a refusal: the deterministic checkpoint is tried instead, or nothing is installed. */
  fallback: z.enum(['forge-state', 'none']).optional(),
});

/** The compaction events, in the order `CompactionEvent` lists them. */
export const compactionEventSchemas = [
  contextCompactionStartedEventSchema,
  contextCompactionCompletedEventSchema,
  contextCompactionFailedEventSchema,
  contextCompactionSkippedEventSchema,
  contextCheckpointCoverageEventSchema,
] as const;
