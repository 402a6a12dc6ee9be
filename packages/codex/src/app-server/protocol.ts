import { z } from 'zod';

/*
 * The slice of the Codex App Server protocol (v2, Codex 0.169) this client reads, as zod schemas.
 * Field and method names were taken from `codex app-server generate-json-schema`; the
 * `protocol-conformance` test regenerates that schema from the installed binary and fails when a
 * field or method below is missing from it. Schemas keep only what Forge uses: unknown fields are
 * dropped, so additive protocol changes do not break the client.
 */

export const clientMethods = {
  initialize: 'initialize',
  threadStart: 'thread/start',
  threadResume: 'thread/resume',
  turnStart: 'turn/start',
  turnInterrupt: 'turn/interrupt',
  threadCompactStart: 'thread/compact/start',
} as const;

export const clientNotifications = { initialized: 'initialized' } as const;

export const serverNotifications = {
  itemStarted: 'item/started',
  itemCompleted: 'item/completed',
  agentMessageDelta: 'item/agentMessage/delta',
  reasoningSummaryDelta: 'item/reasoning/summaryTextDelta',
  commandOutputDelta: 'item/commandExecution/outputDelta',
  tokenUsageUpdated: 'thread/tokenUsage/updated',
  turnStarted: 'turn/started',
  turnCompleted: 'turn/completed',
  error: 'error',
} as const;

export const serverRequests = {
  commandApproval: 'item/commandExecution/requestApproval',
  fileChangeApproval: 'item/fileChange/requestApproval',
} as const;

const nullableString = z.string().nullable();

export const initializeResponseSchema = z.object({
  userAgent: z.string(),
  codexHome: z.string().optional(),
  platformOs: z.string().optional(),
});

export const threadSchema = z.object({
  id: z.string(),
  path: nullableString.optional(),
  cliVersion: z.string().optional(),
});

export const threadStartResponseSchema = z.object({
  thread: threadSchema,
  model: z.string(),
  modelProvider: z.string(),
  cwd: z.string(),
});

export const turnErrorSchema = z.object({ message: z.string(), additionalDetails: nullableString.optional() });

export const turnStatusSchema = z.enum(['completed', 'interrupted', 'failed', 'inProgress']);

export const turnSchema = z.object({
  id: z.string(),
  status: turnStatusSchema,
  error: turnErrorSchema.nullable().default(null),
});

/** `thread/resume` answers with the same thread facts as `thread/start`. */
export const threadResumeResponseSchema = threadStartResponseSchema;

export const turnStartResponseSchema = z.object({ turn: turnSchema });

export const userInputSchema = z.object({ type: z.string(), text: z.string().optional() });

export const userMessageItemSchema = z.object({
  type: z.literal('userMessage'),
  id: z.string(),
  content: z.array(userInputSchema),
});
export const agentMessageItemSchema = z.object({ type: z.literal('agentMessage'), id: z.string(), text: z.string() });
export const reasoningItemSchema = z.object({
  type: z.literal('reasoning'),
  id: z.string(),
  summary: z.array(z.string()),
  content: z.array(z.string()),
});
export const itemStatusSchema = z.enum(['inProgress', 'completed', 'failed', 'declined']);
export const commandExecutionItemSchema = z.object({
  type: z.literal('commandExecution'),
  id: z.string(),
  command: z.string(),
  cwd: z.string(),
  status: itemStatusSchema,
  aggregatedOutput: nullableString,
  exitCode: z.number().nullable(),
  durationMs: z.number().nullable(),
});
export const fileUpdateChangeSchema = z.object({
  path: z.string(),
  kind: z.object({ type: z.enum(['add', 'delete', 'update']), move_path: nullableString.optional() }),
  diff: z.string(),
});
export const fileChangeItemSchema = z.object({
  type: z.literal('fileChange'),
  id: z.string(),
  changes: z.array(fileUpdateChangeSchema),
  status: itemStatusSchema,
});
export const contextCompactionItemSchema = z.object({ type: z.literal('contextCompaction'), id: z.string() });

/** A thread item Forge interprets; anything else arrives as `{ type: 'other' }`. */
export type CodexThreadItem =
  | z.infer<typeof userMessageItemSchema>
  | z.infer<typeof agentMessageItemSchema>
  | z.infer<typeof reasoningItemSchema>
  | z.infer<typeof commandExecutionItemSchema>
  | z.infer<typeof fileChangeItemSchema>
  | z.infer<typeof contextCompactionItemSchema>
  | { readonly type: 'other'; readonly itemType: string; readonly id: string };

const itemSchemas = {
  userMessage: userMessageItemSchema,
  agentMessage: agentMessageItemSchema,
  reasoning: reasoningItemSchema,
  commandExecution: commandExecutionItemSchema,
  fileChange: fileChangeItemSchema,
  contextCompaction: contextCompactionItemSchema,
} as const;

const itemEnvelopeSchema = z.object({ type: z.string(), id: z.string() });

/** Reads a thread item off the wire; unknown item types become `{ type: 'other' }`. */
export function parseThreadItem(value: unknown): CodexThreadItem {
  const envelope = itemEnvelopeSchema.parse(value);
  const schema = (itemSchemas as Record<string, z.ZodType<CodexThreadItem>>)[envelope.type];
  if (schema === undefined) return { type: 'other', itemType: envelope.type, id: envelope.id };
  return schema.parse(value);
}

export const itemNotificationSchema = z.object({ item: z.unknown(), threadId: z.string(), turnId: z.string() });

export const agentMessageDeltaSchema = z.object({
  threadId: z.string(),
  turnId: z.string(),
  itemId: z.string(),
  delta: z.string(),
});

export const tokenUsageBreakdownSchema = z.object({
  totalTokens: z.number(),
  inputTokens: z.number(),
  cachedInputTokens: z.number(),
  outputTokens: z.number(),
  reasoningOutputTokens: z.number(),
});

export const threadTokenUsageSchema = z.object({
  total: tokenUsageBreakdownSchema,
  last: tokenUsageBreakdownSchema,
  modelContextWindow: z.number().nullable().default(null),
});

export const tokenUsageUpdatedSchema = z.object({
  threadId: z.string(),
  turnId: z.string(),
  tokenUsage: threadTokenUsageSchema,
});

export const turnNotificationSchema = z.object({ threadId: z.string(), turn: turnSchema });

export const errorNotificationSchema = z.object({
  error: turnErrorSchema,
  willRetry: z.boolean(),
  threadId: z.string(),
  turnId: z.string(),
});

export const commandApprovalParamsSchema = z.object({
  threadId: z.string(),
  turnId: z.string(),
  itemId: z.string(),
  command: nullableString.optional(),
  cwd: nullableString.optional(),
  reason: nullableString.optional(),
});

export const fileChangeApprovalParamsSchema = z.object({
  threadId: z.string(),
  turnId: z.string(),
  itemId: z.string(),
  reason: nullableString.optional(),
  grantRoot: nullableString.optional(),
});

/**
 * Which generated protocol definition each schema above reads. The conformance test checks every
 * field of each schema against that definition.
 */
export const protocolDefinitions: Readonly<Record<string, z.ZodObject>> = {
  InitializeResponse: initializeResponseSchema,
  ThreadStartResponse: threadStartResponseSchema,
  ThreadResumeResponse: threadResumeResponseSchema,
  Thread: threadSchema,
  Turn: turnSchema,
  TurnError: turnErrorSchema,
  TurnStartResponse: turnStartResponseSchema,
  FileUpdateChange: fileUpdateChangeSchema,
  ItemStartedNotification: itemNotificationSchema,
  ItemCompletedNotification: itemNotificationSchema,
  AgentMessageDeltaNotification: agentMessageDeltaSchema,
  TokenUsageBreakdown: tokenUsageBreakdownSchema,
  ThreadTokenUsage: threadTokenUsageSchema,
  ThreadTokenUsageUpdatedNotification: tokenUsageUpdatedSchema,
  TurnCompletedNotification: turnNotificationSchema,
  ErrorNotification: errorNotificationSchema,
  CommandExecutionRequestApprovalParams: commandApprovalParamsSchema,
  FileChangeRequestApprovalParams: fileChangeApprovalParamsSchema,
};

/** Thread item variants (inside the generated `ThreadItem` union) and the schema that reads each. */
export const threadItemDefinitions: Readonly<Record<string, z.ZodObject>> = itemSchemas;

/** Request parameters Forge sends, by generated definition name, with the fields it fills. */
export const sentParameterFields: Readonly<Record<string, readonly string[]>> = {
  InitializeParams: ['clientInfo', 'capabilities'],
  ThreadStartParams: [
    'cwd',
    'approvalPolicy',
    'sandbox',
    'model',
    'modelProvider',
    'config',
    'developerInstructions',
    'ephemeral',
  ],
  ThreadResumeParams: [
    'threadId',
    'cwd',
    'approvalPolicy',
    'sandbox',
    'model',
    'developerInstructions',
    'excludeTurns',
  ],
  TurnStartParams: ['threadId', 'input'],
  TurnInterruptParams: ['threadId', 'turnId'],
  ThreadCompactStartParams: ['threadId'],
};
