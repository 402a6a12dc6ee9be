import type {
  LanguageModelV4FunctionTool,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ToolResultOutput,
  SharedV4ProviderOptions,
} from '@ai-sdk/provider';
import {
  toolsInWireOrder,
  type JsonObject,
  type Message,
  type ModelRequest,
  type ReasoningPart,
  type ToolDefinition,
  type ToolResultOutput,
} from '@forge/core';
import { sendableMessages } from './pairing.js';

export interface PromptOptions {
  /** Whether a reasoning part from the history may be sent back to this provider and model. */
  readonly keepReasoning: (part: ReasoningPart) => boolean;
  /**
   * Messages that stand in for the checkpoint view (provider-native state). When given, the
   * checkpoint text is not sent.
   */
  readonly checkpointReplacement?: readonly LanguageModelV4Message[];
}

/** The heading of the user message that carries a rendered checkpoint view. */
export const CHECKPOINT_HEADING = 'Checkpoint of the earlier conversation (memory, not instructions):';

/**
 * Encodes a model request as an AI SDK prompt, in the order core defines: instructions,
 * checkpoint, history, current request, continuation. The checkpoint travels as a user message so
 * it never gains the authority of instructions. Pairing rules are applied across the whole
 * conversation before encoding.
 */
export function toLanguageModelPrompt(request: ModelRequest, options: PromptOptions): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = [];
  if (request.instructions.length > 0) prompt.push({ role: 'system', content: request.instructions });
  if (options.checkpointReplacement !== undefined) prompt.push(...options.checkpointReplacement);
  else if (request.checkpoint !== undefined && request.checkpoint.length > 0) {
    prompt.push({ role: 'user', content: [{ type: 'text', text: `${CHECKPOINT_HEADING}\n\n${request.checkpoint}` }] });
  }
  prompt.push(
    ...encodeConversation([...request.history, request.currentRequest, ...request.continuation], options.keepReasoning),
  );
  return prompt;
}

/** Encodes conversation messages after dropping reasoning `keepReasoning` refuses and applying the pairing rules. */
export function encodeConversation(
  messages: readonly Message[],
  keepReasoning: (part: ReasoningPart) => boolean,
): LanguageModelV4Message[] {
  return sendableMessages(withoutForeignReasoning(messages, keepReasoning)).map(encodeMessage);
}

/** Tool definitions as AI SDK function tools, in wire order (by name): the schemas at the start of a request never move. */
export function toLanguageModelTools(tools: readonly ToolDefinition[]): LanguageModelV4FunctionTool[] {
  return toolsInWireOrder(tools).map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema as LanguageModelV4FunctionTool['inputSchema'],
  }));
}

function withoutForeignReasoning(messages: readonly Message[], keep: (part: ReasoningPart) => boolean): Message[] {
  return messages.map((message) =>
    message.role === 'assistant'
      ? { role: 'assistant', content: message.content.filter((part) => part.type !== 'reasoning' || keep(part)) }
      : message,
  );
}

function providerOptions(metadata: JsonObject | undefined): { providerOptions?: SharedV4ProviderOptions } {
  return metadata === undefined ? {} : { providerOptions: metadata as SharedV4ProviderOptions };
}

function encodeMessage(message: Message): LanguageModelV4Message {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: [{ type: 'text', text: message.content }] };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content.map((part) => {
          switch (part.type) {
            case 'text':
              return { type: 'text', text: part.text };
            case 'reasoning':
              return { type: 'reasoning', text: part.text, ...providerOptions(part.providerMetadata) };
            case 'tool-call':
              return {
                type: 'tool-call',
                toolCallId: part.toolCallId,
                toolName: part.toolName,
                input: part.input,
                ...providerOptions(part.providerMetadata),
              };
          }
        }),
      };
    case 'tool':
      return {
        role: 'tool',
        content: message.content.map((part) => ({
          type: 'tool-result',
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          output: encodeOutput(part.output),
        })),
      };
  }
}

function encodeOutput(output: ToolResultOutput): LanguageModelV4ToolResultOutput {
  switch (output.type) {
    case 'text':
      return { type: 'text', value: output.value };
    case 'json':
      return {
        type: 'json',
        value: output.value as Extract<LanguageModelV4ToolResultOutput, { type: 'json' }>['value'],
      };
    case 'error-text':
      return { type: 'error-text', value: output.value };
  }
}
