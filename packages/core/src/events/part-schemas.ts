import { z } from 'zod';
import type { EstimatorAccuracy } from '../budget/accuracy-tracker.js';
import type { ContextBudget } from '../budget/budget.js';
import type { UsageReconciliation } from '../budget/reconcile.js';
import type { CoverageItem } from '../checkpoint/coverage.js';
import type { CostGateDecision } from '../compaction/cost-gate.js';
import type { FinishReason, TokenEstimate, Usage } from '../model/adapter.js';
import type { PriceSheet } from '../pricing/price-sheet.js';
import type { CostBreakdown } from '../pricing/price-usage.js';
import type { RunCostSummary } from '../run/run-cost.js';
import type { ViewSummary } from '../view/request-view.js';

/*
 * Schemas of the domain values events carry (usage, a budget, a price sheet …). The values keep
 * their own TypeScript declarations next to the code that computes them; `SameShape` below makes
 * the compiler fail when a declaration and its schema drift apart.
 */

/** A count of tokens, steps or messages: a whole number ≥ 0. */
export const countSchema = z.number().int().min(0);
const dollars = z.number().min(0);

/** A field the provider did not report is absent from the JSON; the parsed value has it, set to undefined, as `Usage` does. */
export const usageSchema = z
  .object({
    inputTokens: z.number().optional(),
    cacheReadTokens: z.number().optional(),
    cacheWriteTokens: z.number().optional(),
    outputTokens: z.number().optional(),
    reasoningTokens: z.number().optional(),
  })
  .transform(({ inputTokens, cacheReadTokens, cacheWriteTokens, outputTokens, reasoningTokens }) => ({
    inputTokens,
    cacheReadTokens,
    cacheWriteTokens,
    outputTokens,
    reasoningTokens,
  }));

export const finishReasonSchema = z.enum(['stop', 'length', 'content-filter', 'tool-calls', 'error', 'other']);

export const errorSummarySchema = z.object({ code: z.string(), message: z.string(), isRetryable: z.boolean() });

export const contextEventModelSchema = z.object({ provider: z.string(), modelId: z.string() });

export const contextModeSchema = z.enum(['off', 'warn', 'shadow', 'compact']);

const tokenPricesShape = {
  inputPerMillion: dollars,
  cachedInputPerMillion: dollars.optional(),
  cacheWritePerMillion: dollars.optional(),
  outputPerMillion: dollars,
};

export const priceSheetSchema = z.object({
  ...tokenPricesShape,
  currency: z.literal('USD'),
  longContext: z.object({ ...tokenPricesShape, aboveInputTokens: z.number() }).optional(),
  source: z.enum(['table', 'config']),
  asOf: z.string().optional(),
  reference: z.string().optional(),
  note: z.string().optional(),
});

export const costBreakdownSchema = z.object({
  currency: z.literal('USD'),
  freshInput: dollars,
  cachedInput: dollars,
  cacheWrite: dollars,
  output: dollars,
  total: dollars,
});

export const runCostSummarySchema = z.object({
  cost: costBreakdownSchema.optional(),
  unpricedSteps: countSchema.optional(),
  cacheHitRatio: z.number().optional(),
});

export const tokenEstimateSchema = z.object({
  tokens: z.number(),
  method: z.enum(['provider-tokenizer', 'sdk', 'conservative-fallback']),
  confidence: z.enum(['exact', 'estimated']),
  categories: z.object({
    instructions: z.number(),
    checkpoint: z.number(),
    history: z.number(),
    request: z.number(),
    continuation: z.number(),
    toolSchemas: z.number(),
    overhead: z.number(),
  }),
  /** Set when the counts were scaled by a correction learned from earlier provider usage of `model`. */
  calibration: z.object({ factor: z.number(), model: z.string() }).optional(),
});

export const contextBudgetSchema = z.object({
  mode: contextModeSchema,
  decision: z.enum(['ok', 'warn', 'limit_reached', 'off']),
  contextWindowTokens: z.number(),
  windowSource: z.enum(['table', 'config', 'fallback']),
  maxInputTokens: z.number().optional(),
  estimate: tokenEstimateSchema,
  requestedOutputTokens: z.number(),
  bufferTokens: z.number(),
  reservedTokens: z.number(),
  availableInputTokens: z.number(),
  mandatoryTokens: z.number(),
  remainingHistoryTokens: z.number(),
  freeTokens: z.number(),
  warnAtTokens: z.number(),
  compactAtTokens: z.number(),
  compactTargetTokens: z.number(),
  overBudget: z.boolean(),
});

export const viewSummarySchema = z.object({
  checkpointId: z.string().optional(),
  coveredMessages: countSchema,
  verbatimMessages: countSchema,
  omitted: z.literal(0),
});

export const usageReconciliationSchema = z.object({
  estimatedTokens: z.number(),
  reportedInputTokens: z.number().optional(),
  cacheReadTokens: z.number().optional(),
  cacheWriteTokens: z.number().optional(),
  errorTokens: z.number().optional(),
  errorPercent: z.number().optional(),
  undercountBeyondBuffer: z.boolean(),
});

export const estimatorAccuracySchema = z.object({
  provider: z.string(),
  modelId: z.string(),
  samples: countSchema,
  meanErrorPercent: z.number(),
  meanAbsoluteErrorPercent: z.number(),
  maxUndercountTokens: z.number(),
  undercountsBeyondBuffer: countSchema,
  unsafeForAutoCompaction: z.boolean(),
});

export const costGateDecisionSchema = z.object({
  compact: z.boolean(),
  basis: z.enum(['priced', 'tokens']),
  required: z.literal(true).optional(),
  note: z.string().optional(),
  priced: z
    .object({
      currency: z.literal('USD'),
      horizonRequests: z.number(),
      cache: z.enum(['warm', 'cold']),
      idleMs: z.number().optional(),
      lifetimeMs: z.number().optional(),
      cachedBeforeTokens: z.number(),
      stablePrefixTokens: z.number(),
      keepUsd: z.number(),
      compactedUsd: z.number(),
      savingUsd: z.number(),
      invalidationUsd: z.number(),
      compactorUsd: z.number(),
      riskAllowanceUsd: z.number(),
      netUsd: z.number(),
    })
    .optional(),
  horizonTurns: z.number(),
  reclaimedTokens: z.number(),
  expectedSavingsTokens: z.number(),
  compactionTokens: z.number(),
  cacheRewriteTokens: z.number(),
  costTokens: z.number(),
});

export const coverageItemSchema = z.object({
  kind: z.enum(['request', 'constraint', 'failure', 'changed_file']),
  seq: countSchema,
  text: z.string(),
});

/**
 * A zod output type as the data really is: zod writes `x?: T | undefined` for an optional field,
 * but a parsed object never holds an optional key set to undefined, so the key is `x?: T`.
 */
type ParsedShape<T> = T extends readonly (infer Item)[]
  ? ParsedShape<Item>[]
  : T extends object
    ? { [K in keyof T]: {} extends Pick<T, K> ? ParsedShape<Exclude<T[K], undefined>> : ParsedShape<T[K]> }
    : T;
/** True when each type is assignable to the other (readonly modifiers aside). */
type SameShape<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Check<T extends true> = T;
export type PartSchemasMatchTheirTypes = [
  Check<SameShape<ParsedShape<z.infer<typeof usageSchema>>, Usage>>,
  Check<SameShape<ParsedShape<z.infer<typeof finishReasonSchema>>, FinishReason>>,
  Check<SameShape<ParsedShape<z.infer<typeof priceSheetSchema>>, PriceSheet>>,
  Check<SameShape<ParsedShape<z.infer<typeof costBreakdownSchema>>, CostBreakdown>>,
  Check<SameShape<ParsedShape<z.infer<typeof runCostSummarySchema>>, RunCostSummary>>,
  Check<SameShape<ParsedShape<z.infer<typeof tokenEstimateSchema>>, TokenEstimate>>,
  Check<SameShape<ParsedShape<z.infer<typeof contextBudgetSchema>>, ContextBudget>>,
  Check<SameShape<ParsedShape<z.infer<typeof viewSummarySchema>>, ViewSummary>>,
  Check<SameShape<ParsedShape<z.infer<typeof usageReconciliationSchema>>, UsageReconciliation>>,
  Check<SameShape<ParsedShape<z.infer<typeof estimatorAccuracySchema>>, EstimatorAccuracy>>,
  Check<SameShape<ParsedShape<z.infer<typeof costGateDecisionSchema>>, CostGateDecision>>,
  Check<SameShape<ParsedShape<z.infer<typeof coverageItemSchema>>, CoverageItem>>,
];
