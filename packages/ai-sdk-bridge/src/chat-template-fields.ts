import type { AssistantMessage, ToolDefinition, ToolResultPart } from '@forge/core';

/*
 * What a chat-completions server (OpenAI-compatible, DeepSeek) receives for Forge's messages, as
 * the AI SDK encodes them: chat templates render these fields, so the token-counting layouts
 * start from them.
 */

/** An assistant message's text parts, joined. */
export function assistantText(message: AssistantMessage): string {
  return message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
}

/** Its reasoning parts, joined (sent back as `reasoning_content`). */
export function assistantReasoning(message: AssistantMessage): string {
  return message.content.flatMap((part) => (part.type === 'reasoning' ? [part.text] : [])).join('');
}

/** A tool result's `content` string. */
export function toolResultText(part: ToolResultPart): string {
  return part.output.type === 'json' ? JSON.stringify(part.output.value) : part.output.value;
}

/** A tool definition as the request's `tools` array carries it. */
export function wireTool(tool: ToolDefinition): {
  readonly type: 'function';
  readonly function: Readonly<Record<string, unknown>>;
} {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  };
}
