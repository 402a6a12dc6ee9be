import type { Message } from '../messages.js';
import type { ModelRequest, TokenCategories, TokenEstimate } from '../model/adapter.js';

const CHARS_PER_TOKEN = 4;
const PER_MESSAGE_OVERHEAD = 4;

function count(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

function countMessage(message: Message): number {
  if (message.role === 'user') return count(message.content);
  let tokens = 0;
  for (const part of message.content) {
    switch (part.type) {
      case 'text':
      case 'reasoning':
        tokens += count(part.text);
        break;
      case 'tool-call':
        tokens += count(part.toolName) + count(JSON.stringify(part.input));
        break;
      case 'tool-result':
        tokens +=
          count(part.toolName) +
          count(typeof part.output.value === 'string' ? part.output.value : JSON.stringify(part.output.value));
        break;
    }
  }
  return tokens;
}

/**
 * A deterministic estimator for tests: one token per four characters, four tokens of framing per
 * message. Not a model of any real tokenizer — only stable and easy to reason about.
 */
export function estimateWithFakeTokenizer(request: ModelRequest): TokenEstimate {
  const sum = (messages: readonly Message[]) => messages.reduce((total, message) => total + countMessage(message), 0);
  const messageCount =
    1 + (request.checkpoint === undefined ? 0 : 1) + request.history.length + 1 + request.continuation.length;
  const categories: TokenCategories = {
    instructions: count(request.instructions),
    checkpoint: request.checkpoint === undefined ? 0 : count(request.checkpoint),
    history: sum(request.history),
    request: count(request.currentRequest.content),
    continuation: sum(request.continuation),
    toolSchemas: request.tools.reduce(
      (total, tool) => total + count(tool.name) + count(tool.description) + count(JSON.stringify(tool.inputSchema)),
      0,
    ),
    overhead: messageCount * PER_MESSAGE_OVERHEAD,
  };
  const tokens = Object.values(categories).reduce((total, value) => total + value, 0);
  return { tokens, method: 'conservative-fallback', confidence: 'estimated', categories };
}
