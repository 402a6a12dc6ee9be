import type { AssistantMessage, Message } from '@forge/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sendableMessages } from './pairing.js';

const callIds = fc.constantFrom('c1', 'c2', 'c3');
const assistantPart = fc.oneof(
  fc.constant({ type: 'text' as const, text: 'answer' }),
  fc.constant({ type: 'reasoning' as const, text: 'thinking' }),
  callIds.map((toolCallId) => ({ type: 'tool-call' as const, toolCallId, toolName: 'read', input: {} })),
);
const message: fc.Arbitrary<Message> = fc.oneof(
  fc.constant({ role: 'user' as const, content: 'hi' }),
  fc.array(assistantPart, { minLength: 1, maxLength: 4 }).map((content) => ({ role: 'assistant' as const, content })),
  fc.array(callIds, { minLength: 1, maxLength: 2 }).map((ids) => ({
    role: 'tool' as const,
    content: ids.map((toolCallId) => ({
      type: 'tool-result' as const,
      toolCallId,
      toolName: 'read',
      output: { type: 'text' as const, value: 'ok' },
    })),
  })),
);

describe('sendableMessages', () => {
  it('never sends a result before its call, a call without its result, or trailing reasoning', () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 12 }), (messages) => {
        const sent = sendableMessages(messages);
        const calls = new Set<string>();
        const results = new Set<string>();
        for (const item of sent) {
          expect(item.content.length).toBeGreaterThan(0);
          if (item.role === 'assistant') {
            for (const part of item.content) if (part.type === 'tool-call') calls.add(part.toolCallId);
            expect(item.content.at(-1)?.type).not.toBe('reasoning');
          }
          if (item.role === 'tool') {
            for (const part of item.content) {
              expect(calls.has(part.toolCallId)).toBe(true);
              expect(results.has(part.toolCallId)).toBe(false);
              results.add(part.toolCallId);
            }
          }
        }
        expect([...calls].filter((id) => !results.has(id))).toEqual([]);
      }),
    );
  });

  it('leaves a well-paired conversation unchanged', () => {
    const paired: Message[] = [
      { role: 'user', content: 'read it' },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'need the file' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: { path: 'a' } },
        ],
      },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read', output: { type: 'text', value: 'A' } }],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'It says A.' }] },
    ];
    expect(sendableMessages(paired)).toEqual(paired);
  });

  it('drops an orphaned result and the reasoning of a call that was never answered', () => {
    const assistant: AssistantMessage = {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'r' },
        { type: 'tool-call', toolCallId: 'c9', toolName: 'read', input: {} },
      ],
    };
    const messages: Message[] = [
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'c0', toolName: 'read', output: { type: 'text', value: 'x' } }],
      },
      { role: 'user', content: 'hi' },
      assistant,
    ];
    expect(sendableMessages(messages)).toEqual([{ role: 'user', content: 'hi' }]);
  });
});
