import type { AssistantMessage, Message, ToolMessage } from '@forge/core';

/**
 * The messages of `messages` that may be sent to a provider, in order, keeping its pairing rules:
 * a tool result travels only after its call, a tool call only with its result, and a reasoning
 * part only when an answer part (text or a kept tool call) follows it in the same message.
 * Messages left empty are dropped. The input is not modified.
 */
export function sendableMessages(messages: readonly Message[]): Message[] {
  const called = new Set<string>();
  const answered = new Set<string>();
  for (const message of messages) {
    if (message.role === 'assistant') {
      for (const part of message.content) if (part.type === 'tool-call') called.add(part.toolCallId);
    } else if (message.role === 'tool') {
      for (const part of message.content) if (called.has(part.toolCallId)) answered.add(part.toolCallId);
    }
  }

  const sentCalls = new Set<string>();
  const sentResults = new Set<string>();
  const result: Message[] = [];
  for (const message of messages) {
    if (message.role === 'user') {
      result.push(message);
    } else if (message.role === 'assistant') {
      const kept = keepAssistantParts(message, answered);
      for (const part of kept) if (part.type === 'tool-call') sentCalls.add(part.toolCallId);
      if (kept.length > 0) result.push({ role: 'assistant', content: kept });
    } else {
      const content: ToolMessage['content'] = [];
      for (const part of message.content) {
        if (!sentCalls.has(part.toolCallId) || sentResults.has(part.toolCallId)) continue;
        sentResults.add(part.toolCallId);
        content.push(part);
      }
      if (content.length > 0) result.push({ role: 'tool', content } satisfies ToolMessage);
    }
  }
  return result;
}

function keepAssistantParts(message: AssistantMessage, answered: ReadonlySet<string>): AssistantMessage['content'] {
  const withoutUnanswered = message.content.filter(
    (part) => part.type !== 'tool-call' || answered.has(part.toolCallId),
  );
  const kept: AssistantMessage['content'] = [];
  for (const [index, part] of withoutUnanswered.entries()) {
    if (part.type === 'reasoning' && !withoutUnanswered.slice(index + 1).some((next) => next.type !== 'reasoning'))
      continue;
    kept.push(part);
  }
  return kept;
}
