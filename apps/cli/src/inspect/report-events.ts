import {
  anyEventEnvelopeSchema,
  contextCheckpointCoverageEventSchema,
  contextCompactionCompletedEventSchema,
  contextEstimatorFlaggedEventSchema,
  contextLimitReachedEventSchema,
  contextUsageReconciledEventSchema,
  costBreakdownSchema,
  envelopeShape,
  modelStepCompletedEventSchema,
  priceSheetSchema,
  runStartedEventSchema,
  toolCallCompletedEventSchema,
  toolCallStartedEventSchema,
} from '@forge/core/events';
import {
  codexCompactionCompletedEventSchema,
  codexTokenUsageRecordSchema,
  codexUsageRecordedEventSchema,
} from '@forge/codex/events';
import { z } from 'zod';

/*
 * The part of each event `forge inspect` reports on, picked from core's event schemas. Envelopes
 * are checked as core defines them; event payloads only for the fields the report uses (other
 * fields are dropped, which also keeps parsing fast on a 100 MB trace), and more loosely than core
 * writes them, so a trace from a newer or older Forge still gives the best report it can: fields
 * are optional, names of reasons, outcomes and strategies are any text, and the shapes older
 * traces wrote (a flat `context.budgeted` estimate, Codex's estimate with `engine: 'codex'`) are
 * read too. Unknown event types are kept with their type only.
 */

function fieldRules(lenient: boolean) {
  const optional = <T extends z.ZodType>(schema: T): z.ZodType<z.output<T> | undefined> =>
    lenient ? schema.optional().catch(undefined) : schema.optional();
  const withDefault = <T extends z.ZodType>(schema: T, fallback: z.output<T>): z.ZodType<z.output<T>> =>
    lenient ? schema.catch(fallback) : (schema as z.ZodType<z.output<T>>);
  const count = modelStepCompletedEventSchema.shape.step;
  const optionalNumber = optional(z.number());
  const optionalText = optional(z.string());
  const usage = z.object({
    inputTokens: optionalNumber,
    cacheReadTokens: optionalNumber,
    cacheWriteTokens: optionalNumber,
    outputTokens: optionalNumber,
    reasoningTokens: optionalNumber,
  });
  const errorSummary = z.object({ code: withDefault(z.string(), 'unknown'), message: withDefault(z.string(), '') });
  return { optional, withDefault, count, optionalNumber, optionalText, usage, errorSummary };
}

type FieldRules = ReturnType<typeof fieldRules>;

function runEventSchemas(rules: FieldRules) {
  const { optional, withDefault, count, optionalNumber, optionalText, usage, errorSummary } = rules;
  /** A priced cost as core writes it; a cost in another currency is not one this Forge adds up. */
  const cost = costBreakdownSchema;
  const sheet = priceSheetSchema.shape;
  const prices = z.object({
    inputPerMillion: sheet.inputPerMillion,
    cachedInputPerMillion: optional(sheet.cachedInputPerMillion.unwrap()),
    cacheWritePerMillion: optional(sheet.cacheWritePerMillion.unwrap()),
    outputPerMillion: sheet.outputPerMillion,
    source: optionalText,
    asOf: optionalText,
    reference: optionalText,
    note: optionalText,
  });
  const runStarted = runStartedEventSchema.shape;
  const toolStarted = toolCallStartedEventSchema.shape;
  const toolCompleted = toolCallCompletedEventSchema.shape;
  return {
    runStarted: z.object({
      type: runStarted.type,
      model: optional(runStarted.model),
      instructions: optional(runStarted.instructions.pick({ hash: true })),
      tools: optional(z.array(z.string())),
      maxSteps: optional(runStarted.maxSteps),
      /** Set by the Codex engine. */
      engine: optionalText,
      prices: optional(prices),
    }),
    stepStarted: z.object({ type: z.literal('model.step.started'), step: count }),
    stepCompleted: z.object({
      type: z.literal('model.step.completed'),
      step: count,
      finishReason: optionalText,
      usage: optional(usage),
      toolCalls: optional(count),
      cost: optional(cost),
    }),
    stepFailed: z.object({ type: z.literal('model.step.failed'), step: count, error: optional(errorSummary) }),
    toolStarted: z.object({
      type: toolStarted.type,
      step: toolStarted.step,
      toolCallId: toolStarted.toolCallId,
      toolName: toolStarted.toolName,
    }),
    toolCompleted: z.object({
      type: toolCompleted.type,
      step: toolCompleted.step,
      toolCallId: toolCompleted.toolCallId,
      toolName: toolCompleted.toolName,
      outcome: z.string(),
      durationMs: withDefault(toolCompleted.durationMs, 0),
    }),
    runEnded: z.object({
      type: z.enum(['run.completed', 'run.failed']),
      status: z.string(),
      steps: optional(count),
      usage: optional(usage),
      durationMs: optionalNumber,
      error: optional(errorSummary),
      cost: optional(cost),
      unpricedSteps: optional(count),
    }),
  };
}

function contextEventSchemas(rules: FieldRules) {
  const { optional, withDefault, count, optionalNumber, optionalText, errorSummary } = rules;
  const reconciled = contextUsageReconciledEventSchema.shape;
  const coverage = contextCheckpointCoverageEventSchema.shape;
  const coverageItem = coverage.items.unwrap().element.shape;
  const categories = z.record(z.string(), z.number());
  return {
    /**
     * The preflight estimate before a provider request, flat or nested under `estimate`; the Codex
     * engine's `codex.context.budgeted` covers only the wrapper Forge sends (older traces have it as
     * `context.budgeted` with `engine: 'codex'`).
     */
    budgeted: z.object({
      type: z.enum(['context.budgeted', 'codex.context.budgeted']),
      step: optional(count),
      /** Set by engines that add their own prompt (Codex) on traces older than `codex.context.budgeted`. */
      engine: optionalText,
      mode: optionalText,
      estimate: optional(
        z.object({
          tokens: optionalNumber,
          method: optionalText,
          confidence: optionalText,
          categories: optional(categories),
        }),
      ),
      estimatedTokens: optionalNumber,
      categories: optional(categories),
      contextWindowTokens: optionalNumber,
      windowSource: optionalText,
      availableInputTokens: optionalNumber,
    }),
    /** Provider-reported usage set beside the estimate once a step is done. */
    usageReconciled: z.object({
      type: reconciled.type,
      step: optional(count),
      estimatedTokens: optionalNumber,
      reportedInputTokens: optionalNumber,
      cacheReadTokens: optionalNumber,
      errorPercent: optionalNumber,
    }),
    warning: z.object({ type: z.literal('context.warning'), step: optional(count) }),
    estimatorFlagged: z.object({
      type: contextEstimatorFlaggedEventSchema.shape.type,
      step: optional(count),
      message: optionalText,
    }),
    /** The Codex engine's own token report for one model response. */
    codexUsage: z.object({
      type: codexUsageRecordedEventSchema.shape.type,
      usage: z.object({
        last: z.object({
          inputTokens: optionalNumber,
          cachedInputTokens: optionalNumber,
          outputTokens: optionalNumber,
        }),
        modelContextWindow: optional(codexTokenUsageRecordSchema.shape.modelContextWindow),
      }),
    }),
    /** A compaction Codex performed inside its own thread. */
    codexCompaction: z.object({
      type: codexCompactionCompletedEventSchema.shape.type,
      compaction: optional(z.object({ itemId: optionalText })),
    }),
    limitReached: z.object({
      type: contextLimitReachedEventSchema.shape.type,
      step: optional(count),
      reason: optionalText,
      message: optionalText,
    }),
    /** The coverage check before a checkpoint is installed: what it missed, and whether it was repaired or refused. */
    coverage: z.object({
      type: coverage.type,
      step: optional(count),
      strategy: optionalText,
      outcome: z.string(),
      missingCount: withDefault(coverage.missingCount, 0),
      items: withDefault(z.array(z.object({ kind: z.string(), seq: coverageItem.seq, text: coverageItem.text })), []),
      checkpointId: optionalText,
      fallback: optionalText,
    }),
    compaction: z.object({
      type: z.enum([
        'context.compaction.started',
        'context.compaction.completed',
        'context.compaction.failed',
        'context.compaction.skipped',
      ]),
      step: optional(count),
      trigger: optionalText,
      strategy: optionalText,
      reason: optionalText,
      message: optionalText,
      reclaimedTokens: optionalNumber,
      tokensBefore: optionalNumber,
      tokensAfter: optionalNumber,
      keptVerbatimTokens: optionalNumber,
      checkpointHash: optionalText,
      checkpointId: optionalText,
      filesInHand: optional(contextCompactionCompletedEventSchema.shape.filesInHand.unwrap()),
      error: optional(errorSummary),
    }),
  };
}

/**
 * The event schemas, built twice: `strict` (optional fields must have the right type; fast, and
 * what every Forge-written line passes) and `lenient` (an optional field of the wrong type is
 * dropped instead of failing the line). A line is checked strictly first and leniently only if
 * that fails, so odd lines cost more and ordinary ones stay cheap.
 */
function eventSchemas(lenient: boolean) {
  const rules = fieldRules(lenient);
  return { ...runEventSchemas(rules), ...contextEventSchemas(rules) };
}

type EventSchemas = ReturnType<typeof eventSchemas>;

export type TraceUsage = NonNullable<z.output<EventSchemas['stepCompleted']>['usage']>;

/** Every event the report uses, by type. */
export type KnownEvent = { [Name in keyof EventSchemas]: z.output<EventSchemas[Name]> }[keyof EventSchemas];

function schemasByType(schemas: EventSchemas): Map<string, z.ZodType<TraceEnvelope<KnownEvent>>> {
  const byType = new Map<string, z.ZodType<TraceEnvelope<KnownEvent>>>();
  for (const schema of Object.values(schemas) as z.ZodObject[]) {
    const envelope = z.object({ ...envelopeShape, event: schema }) as unknown as z.ZodType<TraceEnvelope<KnownEvent>>;
    const type = schema.shape.type;
    const names = type instanceof z.ZodLiteral ? [...type.values] : type instanceof z.ZodEnum ? type.options : [];
    for (const name of names) byType.set(String(name), envelope);
  }
  return byType;
}

/* One schema per event type for the whole line (envelope and event together), so a line is validated in one pass. */
const strictSchemas = schemasByType(eventSchemas(false));
const lenientSchemas = schemasByType(eventSchemas(true));

/** A validated trace line. `event` is a `KnownEvent` when `known` is true. */
export interface TraceEnvelope<E = { readonly type: string }> {
  readonly schemaVersion: number;
  readonly runId: string;
  readonly sessionId?: string | undefined;
  readonly sequence: number;
  readonly timestamp: string;
  readonly event: E;
}

export type ParsedEnvelope =
  | { readonly known: true; readonly envelope: TraceEnvelope<KnownEvent> }
  | { readonly known: false; readonly envelope: TraceEnvelope };

/** Validates a parsed line, against its event type's schema when the report uses that type. */
export function parseEnvelope(
  value: unknown,
): { readonly success: true; readonly data: ParsedEnvelope } | { readonly success: false; readonly error: z.ZodError } {
  const event = typeof value === 'object' && value !== null ? (value as { readonly event?: unknown }).event : undefined;
  const type = typeof event === 'object' && event !== null ? (event as { readonly type?: unknown }).type : undefined;
  const strict = typeof type === 'string' ? strictSchemas.get(type) : undefined;
  if (strict !== undefined) {
    const parsed = strict.safeParse(value);
    if (parsed.success) return { success: true, data: { known: true, envelope: parsed.data } };
    const lenient = lenientSchemas.get(type as string)?.safeParse(value) ?? parsed;
    return lenient.success
      ? { success: true, data: { known: true, envelope: lenient.data } }
      : { success: false, error: lenient.error };
  }
  const parsed = anyEventEnvelopeSchema.safeParse(value);
  return parsed.success
    ? { success: true, data: { known: false, envelope: parsed.data } }
    : { success: false, error: parsed.error };
}
