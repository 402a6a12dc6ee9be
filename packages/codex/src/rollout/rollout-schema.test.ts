import { messageSchema, type Message } from '@forge/core';
import { describe, expect, it } from 'vitest';
import { RolloutReducer } from './reduce.js';

/*
 * Regression: a rollout line whose tool call has an empty `name` or `call_id` used to become a
 * transcript message with an empty toolName/toolCallId — not a valid core message, so storing the
 * import as a session (forge import codex --session) failed. Such a line is now skipped as malformed.
 */

function reduce(lines: readonly unknown[]): { messages: Message[]; malformed: number } {
  const messages: Message[] = [];
  const reducer = new RolloutReducer((message) => messages.push(message));
  lines.forEach((line, index) => reducer.applyLine(JSON.stringify(line), index + 1));
  const state = reducer.finish({ bytes: 0, sha256: '0'.repeat(64) });
  return { messages, malformed: state.skipped.malformedLines };
}

describe('tool calls with an empty name or call id', () => {
  it.each([
    ['function_call without a name', { type: 'function_call', name: '', arguments: '{}', call_id: 'call_1' }],
    ['function_call without a call id', { type: 'function_call', name: 'exec_command', arguments: '{}', call_id: '' }],
    ['custom_tool_call without a name', { type: 'custom_tool_call', name: '', input: 'x', call_id: 'call_1' }],
    [
      'local_shell_call with an empty call id',
      { type: 'local_shell_call', call_id: '', action: { type: 'exec', command: ['ls'] } },
    ],
    ['function_call_output with an empty call id', { type: 'function_call_output', call_id: '', output: 'done' }],
  ])('skips a %s as malformed and keeps the transcript valid', (_name, payload) => {
    const { messages, malformed } = reduce([
      {
        type: 'response_item',
        payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix it' }] },
      },
      { type: 'response_item', payload },
    ]);
    expect(malformed).toBe(1);
    for (const message of messages) expect(messageSchema.safeParse(message).success).toBe(true);
  });
});
