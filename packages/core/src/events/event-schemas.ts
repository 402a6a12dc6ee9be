import { z } from 'zod';
import { contextEventSchemas } from '../budget/context-event-schemas.js';
import { compactionEventSchemas } from '../compaction/event-schemas.js';
import {
  costBreakdownSchema,
  countSchema,
  errorSummarySchema,
  finishReasonSchema,
  priceSheetSchema,
  runCostSummarySchema,
  usageSchema,
} from './part-schemas.js';

export const runStatusSchema = z.enum(['completed', 'step_limit', 'cancelled', 'limit_reached', 'failed']);

export const runStartedEventSchema = z.object({
  type: z.literal('run.started'),
  model: z.object({ provider: z.string(), modelId: z.string() }),
  instructions: z.object({
    hash: z.string(),
    sources: z.array(z.object({ origin: z.string(), sha256: z.string() })).readonly(),
  }),
  tools: z.array(z.string()).readonly(),
  maxSteps: countSchema,
  historyMessages: countSchema,
  /** The price sheet steps are priced with; absent for a model without prices. */
  prices: priceSheetSchema.optional(),
});

export const modelStepStartedEventSchema = z.object({ type: z.literal('model.step.started'), step: countSchema });

export const modelTextDeltaEventSchema = z.object({
  type: z.literal('model.text.delta'),
  step: countSchema,
  delta: z.string(),
});

export const modelStepCompletedEventSchema = z.object({
  type: z.literal('model.step.completed'),
  step: countSchema,
  finishReason: finishReasonSchema,
  usage: usageSchema,
  toolCalls: countSchema,
  /** The step's cost under `run.started`'s price sheet, when the model is priced and usage complete. */
  cost: costBreakdownSchema.optional(),
});

export const modelStepFailedEventSchema = z.object({
  type: z.literal('model.step.failed'),
  step: countSchema,
  error: errorSummarySchema,
});

export const toolCallStartedEventSchema = z.object({
  type: z.literal('tool.call.started'),
  step: countSchema,
  toolCallId: z.string(),
  toolName: z.string(),
  summary: z.string(),
});

export const toolCallCompletedEventSchema = z.object({
  type: z.literal('tool.call.completed'),
  step: countSchema,
  toolCallId: z.string(),
  toolName: z.string(),
  outcome: z.enum(['ok', 'error', 'denied', 'cancelled']),
  durationMs: z.number().min(0),
  /**
   * How the call ended, in one line for people: the tool's own summary (`read src/a.ts (120 lines)`),
   * or why it was refused, failed, denied or cancelled.
   */
  resultSummary: z.string().optional(),
});

const runEndShape = { steps: countSchema, usage: usageSchema, durationMs: z.number().min(0) };

export const runCompletedEventSchema = runCostSummarySchema.extend({
  type: z.literal('run.completed'),
  status: runStatusSchema.exclude(['failed']),
  ...runEndShape,
});

export const runFailedEventSchema = runCostSummarySchema.extend({
  type: z.literal('run.failed'),
  status: z.literal('failed'),
  ...runEndShape,
  error: errorSummarySchema,
});

/** Every event the agent loop reports: run, model step and tool call events, then budget and compaction events. */
export const forgeEventSchema = z.discriminatedUnion('type', [
  runStartedEventSchema,
  modelStepStartedEventSchema,
  modelTextDeltaEventSchema,
  modelStepCompletedEventSchema,
  modelStepFailedEventSchema,
  toolCallStartedEventSchema,
  toolCallCompletedEventSchema,
  runCompletedEventSchema,
  runFailedEventSchema,
  ...contextEventSchemas,
  ...compactionEventSchemas,
]);

/** The envelope's own fields, whatever event it carries. */
export const envelopeShape = {
  schemaVersion: z.number().int(),
  runId: z.string().min(1),
  sessionId: z.string().min(1).optional(),
  /** 0-based, strictly increasing within a run. */
  sequence: countSchema,
  /** ISO-8601 time the event was emitted. */
  timestamp: z.string(),
};

/**
 * An envelope whose event is checked only for its `type`, its other fields kept as they are: what
 * a trace reader accepts before it knows whether this Forge knows the event type (a trace from a
 * newer Forge, or an engine's own events).
 */
export const anyEventEnvelopeSchema = z.object({ ...envelopeShape, event: z.looseObject({ type: z.string().min(1) }) });

/** The envelope of a core event: the whole line a Forge trace holds, checked field by field. */
export const eventEnvelopeSchema = z.object({ ...envelopeShape, event: forgeEventSchema });
