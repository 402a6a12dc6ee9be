import { z } from 'zod';

/*
 * What `forge inspect` reads from a trace line (JSON, so numbers are always finite). Envelopes are checked strictly enough to be
 * trusted; event payloads only for the fields the report uses (other fields are dropped, which
 * also keeps parsing fast on a 100 MB trace), so a trace from a newer or older Forge still gives
 * the best report it can. Unknown event types are kept with their type only.
 */

const envelopeFields = {
  schemaVersion: z.number().int(),
  runId: z.string().min(1),
  sessionId: z.string().min(1).optional(),
  sequence: z.number().int().min(0),
  timestamp: z.string(),
};

/** An envelope whose event is checked only for its `type`: for event types this Forge does not report on. */
export const envelopeSchema = z.object({ ...envelopeFields, event: z.object({ type: z.string().min(1) }) });

/**
 * The event schemas, built twice: `strict` (optional fields must have the right type; fast, and
 * what every Forge-written line passes) and `lenient` (an optional field of the wrong type is
 * dropped instead of failing the line). A line is checked strictly first and leniently only if
 * that fails, so odd lines cost more and ordinary ones stay cheap.
 */
function eventSchemas(lenient: boolean) {
  const optional = <T extends z.ZodType>(schema: T): z.ZodType<z.output<T> | undefined> =>
    lenient ? schema.optional().catch(undefined) : schema.optional();
  const withDefault = <T extends z.ZodType>(schema: T, fallback: z.output<T>): z.ZodType<z.output<T>> =>
    lenient ? schema.catch(fallback) : (schema as z.ZodType<z.output<T>>);
  const count = z.number().int().min(0);
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
  const dollars = z.number().min(0);
  /** A priced cost as core writes it; a cost in another currency is not one this Forge adds up. */
  const cost = z.object({
    currency: z.literal('USD'),
    freshInput: dollars,
    cachedInput: dollars,
    cacheWrite: dollars,
    output: dollars,
    total: dollars,
  });
  const prices = z.object({
    inputPerMillion: dollars,
    cachedInputPerMillion: optional(dollars),
    cacheWritePerMillion: optional(dollars),
    outputPerMillion: dollars,
    source: optionalText,
    asOf: optionalText,
    reference: optionalText,
    note: optionalText,
  });
  const categories = z.record(z.string(), z.number());
  return {
    runStarted: z.object({
      type: z.literal('run.started'),
      model: optional(z.object({ provider: z.string(), modelId: z.string() })),
      instructions: optional(z.object({ hash: z.string() })),
      tools: optional(z.array(z.string())),
      maxSteps: optional(count),
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
      type: z.literal('tool.call.started'),
      step: count,
      toolCallId: z.string(),
      toolName: z.string(),
    }),
    toolCompleted: z.object({
      type: z.literal('tool.call.completed'),
      step: count,
      toolCallId: z.string(),
      toolName: z.string(),
      outcome: z.string(),
      durationMs: withDefault(z.number().min(0), 0),
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
      type: z.literal('context.usage.reconciled'),
      step: optional(count),
      estimatedTokens: optionalNumber,
      reportedInputTokens: optionalNumber,
      cacheReadTokens: optionalNumber,
      errorPercent: optionalNumber,
    }),
    warning: z.object({ type: z.literal('context.warning'), step: optional(count) }),
    estimatorFlagged: z.object({
      type: z.literal('context.estimator.flagged'),
      step: optional(count),
      message: optionalText,
    }),
    /** The Codex engine's own token report for one model response. */
    codexUsage: z.object({
      type: z.literal('codex.usage.recorded'),
      usage: z.object({
        last: z.object({
          inputTokens: optionalNumber,
          cachedInputTokens: optionalNumber,
          outputTokens: optionalNumber,
        }),
        modelContextWindow: optional(z.number().nullable()),
      }),
    }),
    /** A compaction Codex performed inside its own thread. */
    codexCompaction: z.object({
      type: z.literal('codex.compaction.completed'),
      compaction: optional(z.object({ itemId: optionalText })),
    }),
    limitReached: z.object({
      type: z.literal('context.limit_reached'),
      step: optional(count),
      reason: optionalText,
      message: optionalText,
    }),
    /** The coverage check before a checkpoint is installed: what it missed, and whether it was repaired or refused. */
    coverage: z.object({
      type: z.literal('context.checkpoint.coverage'),
      step: optional(count),
      strategy: optionalText,
      outcome: z.string(),
      missingCount: withDefault(count, 0),
      items: withDefault(z.array(z.object({ kind: z.string(), seq: count, text: z.string() })), []),
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
      filesInHand: optional(z.array(z.string())),
      error: optional(errorSummary),
    }),
  };
}

type EventSchemas = ReturnType<typeof eventSchemas>;

export type TraceUsage = NonNullable<z.output<EventSchemas['stepCompleted']>['usage']>;

/** Every event the report uses, by type. */
export type KnownEvent = { [Name in keyof EventSchemas]: z.output<EventSchemas[Name]> }[keyof EventSchemas];

function schemasByType(schemas: EventSchemas): Map<string, z.ZodType<TraceEnvelope<KnownEvent>>> {
  const byType = new Map<string, z.ZodType<TraceEnvelope<KnownEvent>>>();
  for (const schema of Object.values(schemas) as z.ZodObject[]) {
    const envelope = z.object({ ...envelopeFields, event: schema }) as unknown as z.ZodType<TraceEnvelope<KnownEvent>>;
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
  const parsed = envelopeSchema.safeParse(value);
  return parsed.success
    ? { success: true, data: { known: false, envelope: parsed.data } }
    : { success: false, error: parsed.error };
}
