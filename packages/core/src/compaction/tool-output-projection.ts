import { sha256Hex } from '../instructions.js';
import type { Message, ToolResultOutput, ToolResultPart } from '../messages.js';
import { splitIntoGroups } from '../view/groups.js';

/** Bounds of a projected tool output. */
export interface ToolOutputProjectionOptions {
  /** Outputs of at most this many characters are kept as they are (default 2,000). */
  readonly minOutputChars?: number;
  /** Characters of the original output kept as an excerpt (default 400). */
  readonly excerptChars?: number;
}

const DEFAULT_MIN_OUTPUT_CHARS = 2_000;
const DEFAULT_EXCERPT_CHARS = 400;

function outputText(output: ToolResultOutput): string {
  return output.type === 'json' ? JSON.stringify(output.value) : output.value;
}

/**
 * The bounded form of one tool output: tool name, success, size and content hash of the
 * original, a short excerpt and an explicit truncation marker saying how to get the rest. A
 * failed call stays `error-text`, so success is never changed by projecting.
 */
export function projectToolOutput(part: ToolResultPart, options: ToolOutputProjectionOptions = {}): ToolResultPart {
  const text = outputText(part.output);
  const excerptChars = options.excerptChars ?? DEFAULT_EXCERPT_CHARS;
  const success = part.output.type === 'error-text' ? 'failed' : 'succeeded';
  const header =
    `[tool output projected: ${part.toolName} ${success}; ${text.length.toLocaleString('en-US')} characters, sha256 ${sha256Hex(text).slice(0, 16)}; ` +
    `the first ${Math.min(excerptChars, text.length).toLocaleString('en-US')} follow]`;
  const marker = `[… ${Math.max(0, text.length - excerptChars).toLocaleString('en-US')} characters left out to save context; call the tool again (a narrower read or search) if you need them]`;
  const value = `${header}\n${text.slice(0, excerptChars)}\n${marker}`;
  return { ...part, output: { type: part.output.type === 'error-text' ? 'error-text' : 'text', value } };
}

/**
 * Tool calls whose outputs may be projected: results in complete groups before the last group of
 * `messages` (never the latest exchange, never a call still waiting for its result), longer than
 * `minOutputChars`. Returned in transcript order.
 */
export function projectableToolCalls(messages: readonly Message[], options: ToolOutputProjectionOptions = {}): string[] {
  const minimum = options.minOutputChars ?? DEFAULT_MIN_OUTPUT_CHARS;
  const groups = splitIntoGroups(messages);
  const last = groups.at(-1);
  const end = last === undefined ? 0 : last.start;
  const ids: string[] = [];
  for (const group of groups) {
    if (group.end > end || group.pendingToolCalls > 0) continue;
    for (let index = group.start; index < group.end; index += 1) {
      const message = messages[index];
      if (message?.role !== 'tool') continue;
      for (const part of message.content) {
        if (outputText(part.output).length > minimum) ids.push(part.toolCallId);
      }
    }
  }
  return ids;
}

/**
 * `messages` with the outputs of the calls in `projected` replaced by their bounded form. The
 * input is not modified, message and call order are kept, and every call keeps its result, so
 * tool call ↔ result pairing is untouched. Messages without a projected output are returned as
 * the same objects.
 */
export function applyToolOutputProjection(messages: readonly Message[], projected: ReadonlySet<string>, options: ToolOutputProjectionOptions = {}): Message[] {
  if (projected.size === 0) return [...messages];
  return messages.map((message) => {
    if (message.role !== 'tool' || !message.content.some((part) => projected.has(part.toolCallId))) return message;
    return { role: 'tool', content: message.content.map((part) => (projected.has(part.toolCallId) ? projectToolOutput(part, options) : part)) };
  });
}
