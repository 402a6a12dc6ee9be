import { z } from 'zod';

/* The events only the Codex engine emits, next to the core events it shares with native runs. */

const count = z.number().int().min(0);

/** Token cost of the wrapper by category, in the shape of core's `TokenCategories` where they overlap. */
export const wrapperTokenEstimateSchema = z.object({
  tokens: count,
  method: z.literal('conservative-fallback'),
  confidence: z.literal('estimated'),
  bytes: count,
  categories: z.object({
    instructions: count,
    checkpoint: count,
    history: count,
    request: count,
    overhead: count,
  }),
});

/** Token counts Codex reported for one model response or a whole thread. */
export const codexTokenBreakdownSchema = z.object({
  totalTokens: z.number(),
  inputTokens: z.number(),
  cachedInputTokens: z.number(),
  outputTokens: z.number(),
  reasoningOutputTokens: z.number(),
});

/** One `thread/tokenUsage/updated` report: an engine-owned fact, recorded as Codex stated it. */
export const codexTokenUsageRecordSchema = z.object({
  turnId: z.string(),
  last: codexTokenBreakdownSchema,
  total: codexTokenBreakdownSchema,
  /** The window Codex says the model has; Codex decides when to compact against it, not Forge. */
  modelContextWindow: z.number().nullable(),
});

/** A compaction Codex performed inside its thread (manual or its own automatic one). */
export const codexCompactionRecordSchema = z.object({ turnId: z.string(), itemId: z.string() });

export const codexThreadFallbackReasonSchema = z.enum([
  'rollout-missing',
  'resume-failed',
  'codex-version-changed',
  'model-changed',
  'instructions-changed',
  'engine-switched',
  'no-thread-recorded',
]);

/**
 * Why a turn runs on the thread it runs on. `started` with a `fallback` means Forge meant to
 * continue an earlier thread and could not; the new thread gets Forge's bounded view instead.
 */
const threadSelectionShape = {
  how: z.enum(['started', 'continued', 'resumed']),
  fallback: z.object({ reason: codexThreadFallbackReasonSchema, message: z.string() }).optional(),
};
export const codexThreadSelectionSchema = z.object(threadSelectionShape);

export const codexContextBudgetedEventSchema = z.object({
  /**
   * What the wrapper Forge sent costs; Codex's own prompt and tools are not included. (Before
   * it had a name of its own, this was a `context.budgeted` event with `engine: 'codex'`.)
   */
  type: z.literal('codex.context.budgeted'),
  estimate: wrapperTokenEstimateSchema,
  historyMessages: count,
  hasCheckpoint: z.boolean(),
  wrapperSha256: z.string(),
  /** `wrapper`: the active view was sent as a text wrapper; `request`: the thread already holds the conversation, only the request was sent. */
  input: z.enum(['wrapper', 'request']),
});

/** `model` is absent from the JSON when Codex chose the model; the parsed event has it, set to undefined. */
export const codexThreadSelectedEventSchema = z
  .object({
    type: z.literal('codex.thread.selected'),
    threadId: z.string(),
    model: z.string().optional(),
    ...threadSelectionShape,
  })
  .transform(({ model, ...rest }) => ({ ...rest, model }));

export const codexUsageRecordedEventSchema = z.object({
  type: z.literal('codex.usage.recorded'),
  usage: codexTokenUsageRecordSchema,
});

export const codexCompactionCompletedEventSchema = z.object({
  type: z.literal('codex.compaction.completed'),
  compaction: codexCompactionRecordSchema,
});

export const codexOnlyEventSchema = z.discriminatedUnion('type', [
  codexContextBudgetedEventSchema,
  codexThreadSelectedEventSchema,
  codexUsageRecordedEventSchema,
  codexCompactionCompletedEventSchema,
]);
