import { isSafeId, jsonValueSchema, messageSchema } from '@forge/core';
import { z } from 'zod';

/*
 * Schema v2 of a session: one JSON record per line of `sessions/<id>/session.jsonl`. Every line
 * is `{"v":2,"seq":N,"type":...,"at":...,<fields>,"crc":"<8 hex>"}`; `seq` counts lines from 0
 * and the CRC-32 covers the bytes of the line before `,"crc"` (see record-codec.ts).
 */

export const SESSION_SCHEMA_VERSION = 2 as const;
/** Every session schema this Forge can read; older ones are migrated on open. */
export const SUPPORTED_SESSION_SCHEMAS = [1, 2] as const;

/** Longest error message kept for a failed run; the rest is cut. */
export const MAX_ERROR_MESSAGE_CHARS = 2000;

const nonNegativeInteger = z.number().int().min(0);
/** Run ids name trace files (`runs/<run-id>.jsonl`), so a record may only hold a safe one. */
const runIdSchema = z.string().refine(isSafeId, 'a run id uses 1–128 characters from A–Z, a–z, 0–9, "_" and "-"');

const recordBase = {
  v: z.literal(SESSION_SCHEMA_VERSION),
  seq: nonNegativeInteger,
  /** ISO-8601 time the record was written. */
  at: z.string().min(1),
};

export const migratedFromSchema = z.object({
  version: z.literal(1),
  /** File name of the kept v1 original, relative to the sessions directory. */
  backupFile: z.string().min(1),
  messageCount: nonNegativeInteger,
  updatedAt: z.string(),
});

/** Line 0 of every session: who it is and where it was started. */
export const sessionHeaderRecordSchema = z.object({
  ...recordBase,
  type: z.literal('session'),
  id: z.string().min(1),
  createdAt: z.string().min(1),
  /** The workspace the session was started in; unknown for sessions migrated from v1. */
  workspaceRoot: z.string().nullable(),
  migratedFrom: migratedFromSchema.optional(),
});

/** One transcript message; `index` is its position in the transcript (0, 1, 2, ... without gaps). */
export const messageRecordSchema = z.object({
  ...recordBase,
  type: z.literal('message'),
  index: nonNegativeInteger,
  runId: runIdSchema.optional(),
  message: messageSchema,
});

export const runModelSchema = z.object({ provider: z.string(), modelId: z.string() });

export const runStartedRecordSchema = z.object({
  ...recordBase,
  type: z.literal('run.started'),
  runId: runIdSchema,
  instructionsHash: z.string().optional(),
  model: runModelSchema.optional(),
});

export const storedUsageSchema = z.object({
  inputTokens: nonNegativeInteger.optional(),
  cacheReadTokens: nonNegativeInteger.optional(),
  cacheWriteTokens: nonNegativeInteger.optional(),
  outputTokens: nonNegativeInteger.optional(),
  reasoningTokens: nonNegativeInteger.optional(),
});

/**
 * What an engine other than the native one reported about a run (added in place to schema v2: an
 * older reader ignores it). The Codex engine records the App Server thread the run used, so the
 * next turn can continue it, and the context use Codex itself reported. The run's `usage` is then
 * Codex's report, not Forge's estimate.
 */
export const engineRunSchema = z.object({
  name: z.string().min(1).max(64),
  /** The engine's own version (`codex` 0.169.0). */
  version: z.string().max(64),
  thread: z
    .object({
      id: z.string().min(1).max(200),
      model: z.string().max(200),
      rolloutPath: z.string().max(4096).nullable(),
    })
    .optional(),
  /** The engine's latest report of its context: input tokens of its last model call and the window it counts against. */
  context: z
    .object({
      inputTokens: nonNegativeInteger,
      cachedInputTokens: nonNegativeInteger,
      modelContextWindow: nonNegativeInteger.nullable(),
    })
    .optional(),
  /** Compactions the engine made inside its own context during the run (engine-owned). */
  compactions: nonNegativeInteger.optional(),
});

const money = z.number().finite().min(0);

/** A cost in US dollars, split as core's `CostBreakdown` splits it. */
export const storedCostSchema = z.object({
  currency: z.literal('USD'),
  freshInput: money,
  cachedInput: money,
  cacheWrite: money,
  output: money,
  total: money,
});

export const runStatusSchema = z.enum(['completed', 'step_limit', 'cancelled', 'limit_reached', 'failed']);

/** A run's outcome. A failure keeps only a bounded, redacted error: code, message, retryability. */
export const runEndedRecordSchema = z.object({
  ...recordBase,
  type: z.literal('run.ended'),
  runId: runIdSchema,
  status: runStatusSchema,
  steps: nonNegativeInteger.optional(),
  usage: storedUsageSchema,
  instructionsHash: z.string().optional(),
  error: z
    .object({ code: z.string().max(200), message: z.string().max(MAX_ERROR_MESSAGE_CHARS), isRetryable: z.boolean() })
    .optional(),
  engine: engineRunSchema.optional(),
  /**
   * The checkpoint the run's last model request carried (mode `compact`): its id and the SHA-256
   * of its rendered text, so a later process can tell when the same checkpoint renders differently.
   */
  checkpointSent: z
    .object({ id: z.string().min(1).max(200), textSha256: z.string().regex(/^[0-9a-f]{64}$/) })
    .optional(),
  /**
   * Tool calls whose outputs the run began sending projected (mode `compact`), so a later process
   * keeps sending them so and the provider's cached prefix holds.
   */
  projectedToolCalls: z.array(z.string().min(1).max(200)).optional(),
  /**
   * What the run cost, as it was priced while it ran (added in place to schema v2: an older reader
   * ignores it). `priced` is false for a model without prices; a record without it was written by
   * a Forge that did not record costs (their traces still have them).
   */
  priced: z.boolean().optional(),
  cost: storedCostSchema.optional(),
  /** Steps of a priced model whose usage the provider did not report in full: they are not in `cost`. */
  unpricedSteps: nonNegativeInteger.optional(),
});

/**
 * Which messages a checkpoint stands for: `[0, summarizedThrough)` summarized (hashed into
 * `sourceHash`), `[tailStart, messageCount)` kept verbatim (hashed into `tailHash`).
 */
export const checkpointSourceRecordSchema = z.object({
  summarizedThrough: nonNegativeInteger,
  sourceHash: z.string().min(1),
  tailStart: nonNegativeInteger,
  tailHash: z.string().min(1),
  messageCount: nonNegativeInteger,
});

/** A derived checkpoint. The store keeps `checkpoint` as opaque JSON; the latest intact one is current. */
export const checkpointRecordSchema = z.object({
  ...recordBase,
  type: z.literal('checkpoint'),
  source: checkpointSourceRecordSchema,
  checkpoint: jsonValueSchema,
});

export const sessionRecordSchema = z.discriminatedUnion('type', [
  sessionHeaderRecordSchema,
  messageRecordSchema,
  runStartedRecordSchema,
  runEndedRecordSchema,
  checkpointRecordSchema,
]);

export type SessionHeaderRecord = z.infer<typeof sessionHeaderRecordSchema>;
export type MessageRecord = z.infer<typeof messageRecordSchema>;
export type RunStartedRecord = z.infer<typeof runStartedRecordSchema>;
export type RunEndedRecord = z.infer<typeof runEndedRecordSchema>;
export type CheckpointSource = z.infer<typeof checkpointSourceRecordSchema>;
export type CheckpointRecord = z.infer<typeof checkpointRecordSchema>;
export type SessionRecord = z.infer<typeof sessionRecordSchema>;
export type StoredUsage = z.infer<typeof storedUsageSchema>;
export type EngineRunFacts = z.infer<typeof engineRunSchema>;

/** A record before `v` and `seq` are assigned by the writer. */
export type NewSessionRecord = WithoutNumbering<SessionRecord>;
type WithoutNumbering<T> = T extends unknown ? Omit<T, 'v' | 'seq'> : never;
