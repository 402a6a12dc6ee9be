import { z } from 'zod';

/*
 * Schemas for the lines of a Codex rollout file ($CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl),
 * both generations: older files (event_msg user_message/agent_message, `compacted` with only a
 * message, `local_shell_call`, sometimes bare response items without the {type, payload} wrapper)
 * and Codex 0.169 files. Every schema is lenient: it keeps what the importer reads, ignores the
 * rest, and a line that fails is skipped and counted, never fatal.
 */

export const rolloutLineSchema = z.object({
  timestamp: z.string().optional(),
  type: z.string(),
  payload: z.unknown().optional(),
});

export const sessionMetaSchema = z.object({
  id: z.string().optional(),
  session_id: z.string().optional(),
  cwd: z.string().optional(),
  cli_version: z.string().optional(),
  originator: z.string().optional(),
  model_provider: z.string().nullable().optional(),
});

export const turnContextSchema = z.object({ cwd: z.string().optional(), model: z.string().optional() });

const contentPartSchema = z.object({ type: z.string(), text: z.string().optional() });

export const messageItemSchema = z.object({
  type: z.literal('message'),
  role: z.string(),
  content: z.union([z.array(contentPartSchema), z.string()]),
});

export const reasoningItemSchema = z.object({
  type: z.literal('reasoning'),
  summary: z.array(contentPartSchema).nullable().optional(),
  content: z.array(contentPartSchema).nullable().optional(),
});

/** Names and call ids become a transcript's `toolName` and `toolCallId`, which may not be empty. */
const nameSchema = z.string().min(1);

export const functionCallItemSchema = z.object({
  type: z.literal('function_call'),
  name: nameSchema,
  namespace: z.string().nullable().optional(),
  arguments: z.string(),
  call_id: nameSchema,
});

export const customToolCallItemSchema = z.object({
  type: z.literal('custom_tool_call'),
  name: nameSchema,
  input: z.string(),
  call_id: nameSchema,
});

/** Tool output: a string, a legacy `{content, success}` object, or a list of content items. */
export const toolOutputValueSchema = z.union([
  z.string(),
  z.object({ content: z.string().optional(), success: z.boolean().nullable().optional() }),
  z.array(contentPartSchema),
]);

export const toolOutputItemSchema = z.object({
  type: z.enum(['function_call_output', 'custom_tool_call_output']),
  call_id: nameSchema,
  output: toolOutputValueSchema,
});

export const localShellCallItemSchema = z.object({
  type: z.literal('local_shell_call'),
  id: nameSchema.nullable().optional(),
  call_id: nameSchema.nullable().optional(),
  status: z.string().optional(),
  action: z.object({
    type: z.string(),
    command: z.array(z.string()),
    working_directory: z.string().nullable().optional(),
  }),
});

export const compactionItemSchema = z.object({
  type: z.literal('compaction'),
  encrypted_content: z.string(),
});

export const compactedSchema = z.object({
  message: z.string().default(''),
  replacement_history: z.array(z.unknown()).nullable().optional(),
});

export const userMessageEventSchema = z.object({ type: z.literal('user_message'), message: z.string() });
export const agentMessageEventSchema = z.object({ type: z.literal('agent_message'), message: z.string() });

const usageSchema = z.object({
  input_tokens: z.number().default(0),
  cached_input_tokens: z.number().default(0),
  output_tokens: z.number().default(0),
  reasoning_output_tokens: z.number().default(0),
  total_tokens: z.number().default(0),
});

export const tokenCountEventSchema = z.object({
  type: z.literal('token_count'),
  info: z
    .object({
      total_token_usage: usageSchema,
      last_token_usage: usageSchema.optional(),
      model_context_window: z.number().nullable().optional(),
    })
    .nullable()
    .optional(),
});

export const turnAbortedEventSchema = z.object({ type: z.literal('turn_aborted'), reason: z.string().optional() });
export const errorEventSchema = z.object({ type: z.literal('error'), message: z.string() });

export const execCommandEndEventSchema = z.object({
  type: z.literal('exec_command_end'),
  call_id: z.string(),
  exit_code: z.number(),
});

export const patchApplyEndEventSchema = z.object({
  type: z.literal('patch_apply_end'),
  call_id: z.string(),
  success: z.boolean(),
});

/** `event_msg` `item_completed` (0.169): the completed thread item, with exit codes and patch status. */
export const itemCompletedEventSchema = z.object({
  type: z.literal('item_completed'),
  item: z.object({
    type: z.string(),
    id: z.string().optional(),
    exit_code: z.number().nullable().optional(),
    status: z.string().optional(),
  }),
});

export type MessageItem = z.infer<typeof messageItemSchema>;
export type ToolOutputValue = z.infer<typeof toolOutputValueSchema>;
