import { z } from 'zod';
import { jsonObjectSchema, jsonValueSchema } from './json.js';

/*
 * Conversation messages, shaped like the AI SDK's `ModelMessage` (roles user/assistant/tool,
 * typed content parts) so adapters map them with little code. Core owns these types because the
 * transcript, the budget and the checkpoint all read them; core does not depend on the AI SDK.
 */

export const textPartSchema = z.object({ type: z.literal('text'), text: z.string() });

/**
 * A reasoning item as the provider returned it. `providerMetadata` carries opaque provider data
 * (an encrypted reasoning blob, an item id) that must be passed back untouched.
 */
export const reasoningPartSchema = z.object({
  type: z.literal('reasoning'),
  text: z.string(),
  providerMetadata: jsonObjectSchema.optional(),
});

/** What ties a tool result to its call: the call's id and the tool's name. */
const toolCallIdentity = { toolCallId: z.string().min(1), toolName: z.string().min(1) };

export const toolCallPartSchema = z.object({
  type: z.literal('tool-call'),
  ...toolCallIdentity,
  input: jsonValueSchema,
  providerMetadata: jsonObjectSchema.optional(),
});

export const toolResultOutputSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), value: z.string() }),
  z.object({ type: z.literal('json'), value: jsonValueSchema }),
  z.object({ type: z.literal('error-text'), value: z.string() }),
]);

export const toolResultPartSchema = z.object({
  type: z.literal('tool-result'),
  ...toolCallIdentity,
  output: toolResultOutputSchema,
  /** Host-computed facts about the result (content hash, exit code, path); never model-written. */
  metadata: jsonObjectSchema.optional(),
});

export const userMessageSchema = z.object({ role: z.literal('user'), content: z.string() });

export const assistantMessageSchema = z.object({
  role: z.literal('assistant'),
  content: z.array(z.discriminatedUnion('type', [textPartSchema, reasoningPartSchema, toolCallPartSchema])),
});

export const toolMessageSchema = z.object({
  role: z.literal('tool'),
  content: z.array(toolResultPartSchema),
});

export const messageSchema = z.discriminatedUnion('role', [
  userMessageSchema,
  assistantMessageSchema,
  toolMessageSchema,
]);

export type TextPart = z.infer<typeof textPartSchema>;
export type ReasoningPart = z.infer<typeof reasoningPartSchema>;
export type ToolCallPart = z.infer<typeof toolCallPartSchema>;
export type ToolResultOutput = z.infer<typeof toolResultOutputSchema>;
export type ToolResultPart = z.infer<typeof toolResultPartSchema>;
export type UserMessage = z.infer<typeof userMessageSchema>;
export type AssistantMessage = z.infer<typeof assistantMessageSchema>;
export type ToolMessage = z.infer<typeof toolMessageSchema>;
export type Message = z.infer<typeof messageSchema>;

/** The text an assistant message shows the user (tool calls and reasoning left out). */
export function assistantText(message: AssistantMessage): string {
  return message.content
    .filter((part): part is TextPart => part.type === 'text')
    .map((part) => part.text)
    .join('');
}

/** Tool calls in `messages` that have no matching tool result after them. */
export function findUnpairedToolCalls(messages: readonly Message[]): ToolCallPart[] {
  const answered = new Set<string>();
  for (const message of messages) {
    if (message.role === 'tool') for (const part of message.content) answered.add(part.toolCallId);
  }
  const unpaired: ToolCallPart[] = [];
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const part of message.content) {
      if (part.type === 'tool-call' && !answered.has(part.toolCallId)) unpaired.push(part);
    }
  }
  return unpaired;
}
