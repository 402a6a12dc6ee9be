import { assistantText, type Message } from '@forge/core';

/** How much of a resumed conversation the recap shows. */
export const RECAP_REQUESTS = 3;
const REQUEST_CHARS = 100;
const ANSWER_LINES = 2;
const ANSWER_CHARS = 240;

function clip(text: string, limit: number): string {
  const characters = [...text];
  return characters.length > limit ? `${characters.slice(0, limit - 1).join('')}…` : text;
}

function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? ''
  );
}

/** The user requests among `messages` that a recap counts (user messages with some text). */
export function requestCount(messages: readonly Message[]): number {
  return messages.filter((message) => message.role === 'user' && firstLine(message.content) !== '').length;
}

/**
 * A short reminder of where a conversation stands: its last few user requests (first line of
 * each) and the start of the last answer, each bounded, so resuming a long session prints a few
 * lines, never the transcript. Empty for a conversation without requests. `messages` may be the
 * latest part of the conversation, with `requestsBefore` requests before it.
 */
export function conversationRecap(messages: readonly Message[], requestsBefore = 0): string[] {
  const requests = messages.flatMap((message) =>
    message.role === 'user' && firstLine(message.content) !== '' ? [firstLine(message.content)] : [],
  );
  const lines = requests.slice(-RECAP_REQUESTS).map((request) => `you: ${clip(request, REQUEST_CHARS)}`);
  const earlier = requestsBefore + requests.length - RECAP_REQUESTS;
  if (earlier > 0) lines.unshift(`(${earlier} earlier request${earlier === 1 ? '' : 's'})`);
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message?.role === 'user') break;
    if (message?.role !== 'assistant') continue;
    const answer = assistantText(message)
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '')
      .slice(0, ANSWER_LINES)
      .join(' ');
    if (answer !== '') {
      lines.push(`forge: ${clip(answer, ANSWER_CHARS)}`);
      break;
    }
  }
  return lines;
}
