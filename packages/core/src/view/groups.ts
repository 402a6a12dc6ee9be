import type { Message } from '../messages.js';

/**
 * A run of messages that must stay together in any view of the transcript: cutting inside one
 * would send a tool result without its call, a call without its result, or a reasoning item
 * without the item it belongs to.
 */
export interface MessageGroup {
  /** Index of the first message of the group. */
  readonly start: number;
  /** Index one past the last message of the group. */
  readonly end: number;
  /** Role of the group's main message (reasoning-only messages in front of it are not counted). */
  readonly kind: Message['role'];
  /** Tool calls in the group that have no result yet; only the last group of a transcript can have any. */
  readonly pendingToolCalls: number;
}

function isReasoningOnly(message: Message): boolean {
  return (
    message.role === 'assistant' &&
    message.content.length > 0 &&
    message.content.every((part) => part.type === 'reasoning')
  );
}

function countPendingCalls(messages: readonly Message[], start: number, end: number): number {
  const calls = new Set<string>();
  for (let index = start; index < end; index += 1) {
    const message = messages[index];
    if (message?.role === 'assistant') {
      for (const part of message.content) if (part.type === 'tool-call') calls.add(part.toolCallId);
    } else if (message?.role === 'tool') {
      for (const part of message.content) calls.delete(part.toolCallId);
    }
  }
  return calls.size;
}

/**
 * Splits a transcript into safe groups, oldest first. A group is one user message, or one
 * assistant message together with the tool messages that follow it (the results of its calls).
 * An assistant message holding only reasoning joins the group of the item after it. A tool message
 * with no assistant message before it forms a group of its own with any tool messages after it.
 * The groups cover every index exactly once, in order. The input is not modified.
 */
export function splitIntoGroups(messages: readonly Message[]): MessageGroup[] {
  const groups: MessageGroup[] = [];
  let index = 0;
  while (index < messages.length) {
    const start = index;
    while (index + 1 < messages.length && isReasoningOnly(messages[index] as Message)) index += 1;
    const lead = messages[index] as Message;
    index += 1;
    if (lead.role !== 'user') {
      while (index < messages.length && messages[index]?.role === 'tool') index += 1;
    }
    groups.push({ start, end: index, kind: lead.role, pendingToolCalls: countPendingCalls(messages, start, index) });
  }
  return groups;
}
