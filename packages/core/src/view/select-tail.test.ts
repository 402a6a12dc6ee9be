import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../messages.js';
import { splitIntoGroups } from './groups.js';
import { selectRecentTail, selectTail } from './select-tail.js';
import { countJsonTokens, transcriptArbitrary } from './transcript-arbitrary.test-helpers.js';

const oneEach = () => 1;

const user = (content: string): Message => ({ role: 'user', content });
const answer = (text: string): Message => ({ role: 'assistant', content: [{ type: 'text', text }] });
const call = (id: string): Message => ({
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: id, toolName: 'read', input: {} }],
});
const result = (id: string): Message => ({
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId: id, toolName: 'read', output: { type: 'text', value: 'ok' } }],
});
const reasoning: Message = { role: 'assistant', content: [{ type: 'reasoning', text: 'hmm' }] };

describe('splitIntoGroups', () => {
  it('keeps a call with its results and reasoning with the item after it', () => {
    const messages = [
      user('a'),
      reasoning,
      call('1'),
      result('1'),
      answer('b'),
      user('c'),
      call('2'),
      result('2'),
      result('2'),
    ];
    expect(splitIntoGroups(messages).map(({ start, end, kind }) => [start, end, kind])).toEqual([
      [0, 1, 'user'],
      [1, 4, 'assistant'],
      [4, 5, 'assistant'],
      [5, 6, 'user'],
      [6, 9, 'assistant'],
    ]);
  });

  it('reports pending tool calls in the last group', () => {
    expect(splitIntoGroups([user('a'), call('1')]).at(-1)?.pendingToolCalls).toBe(1);
  });

  it('gives an empty transcript no groups', () => {
    expect(splitIntoGroups([])).toEqual([]);
  });
});

describe('selectRecentTail', () => {
  const messages = [user('a'), call('1'), result('1'), answer('b'), user('c'), answer('d')];

  it('keeps whole groups only', () => {
    expect(selectRecentTail(messages, { budgetTokens: 2, messageTokens: messages.map(oneEach) })).toBe(4);
    // With 4 tokens the call/result pair (2 tokens) would need 5 in total, so the cut stays after it.
    expect(selectRecentTail(messages, { budgetTokens: 4, messageTokens: messages.map(oneEach) })).toBe(3);
    expect(selectRecentTail(messages, { budgetTokens: 5, messageTokens: messages.map(oneEach) })).toBe(1);
  });

  it('keeps nothing for a zero budget and everything for an unlimited one', () => {
    expect(selectRecentTail(messages, { budgetTokens: 0, messageTokens: messages.map(oneEach) })).toBe(messages.length);
    expect(
      selectRecentTail(messages, { budgetTokens: Number.POSITIVE_INFINITY, messageTokens: messages.map(oneEach) }),
    ).toBe(0);
  });

  it('always keeps a last group whose tool calls wait for results, and says it is over budget', () => {
    const pending = [user('a'), answer('b'), call('9')];
    const selection = selectTail(pending, { budgetTokens: 0, messageTokens: pending.map(oneEach) });
    expect(selection.tailStart).toBe(2);
    expect(selection.overBudget).toBe(true);
  });

  it('refuses a negative budget, a broken count and counts of another transcript with a clear message', () => {
    expect(() => selectRecentTail(messages, { budgetTokens: -1, messageTokens: messages.map(oneEach) })).toThrow(
      /budget must be a number of tokens/,
    );
    expect(() =>
      selectRecentTail(messages, { budgetTokens: 10, messageTokens: messages.map(() => Number.NaN) }),
    ).toThrow(/messageTokens\[0\] is NaN/);
    expect(() => selectRecentTail(messages, { budgetTokens: 10, messageTokens: [1, 1] })).toThrow(
      /2 counts for 6 messages/,
    );
  });
});

describe('selectRecentTail properties', () => {
  const budget = fc.integer({ min: 0, max: 400 });

  it('never separates a tool call from its result, nor reasoning from the item after it', () => {
    fc.assert(
      fc.property(transcriptArbitrary(), budget, (messages, budgetTokens) => {
        const start = selectRecentTail(messages, { budgetTokens, messageTokens: messages.map(countJsonTokens) });
        const side = (index: number) => index >= start;
        const callIndex = new Map<string, number>();
        messages.forEach((message, index) => {
          if (message.role === 'assistant') {
            for (const part of message.content) if (part.type === 'tool-call') callIndex.set(part.toolCallId, index);
            if (
              index + 1 < messages.length &&
              message.content.length > 0 &&
              message.content.every((part) => part.type === 'reasoning')
            ) {
              expect(side(index)).toBe(side(index + 1));
            }
          }
          if (message.role === 'tool') {
            for (const part of message.content) expect(side(callIndex.get(part.toolCallId) ?? -1)).toBe(side(index));
          }
        });
        expect(messages[start]?.role).not.toBe('tool');
      }),
    );
  });

  it('keeps the longest suffix of whole groups that fits', () => {
    fc.assert(
      fc.property(transcriptArbitrary(), budget, (messages, budgetTokens) => {
        const selection = selectTail(messages, { budgetTokens, messageTokens: messages.map(countJsonTokens) });
        const tailTokens = messages
          .slice(selection.tailStart)
          .reduce((total, message) => total + countJsonTokens(message), 0);
        expect(selection.tailTokens).toBe(tailTokens);
        if (!selection.overBudget) expect(tailTokens).toBeLessThanOrEqual(budgetTokens);
        const previous = selection.groups[selection.firstKeptGroup - 1];
        if (previous !== undefined) {
          const withPrevious = messages
            .slice(previous.start)
            .reduce((total, message) => total + countJsonTokens(message), 0);
          expect(withPrevious).toBeGreaterThan(budgetTokens);
        }
      }),
    );
  });

  it('is monotone in the budget', () => {
    fc.assert(
      fc.property(transcriptArbitrary(), budget, budget, (messages, first, second) => {
        const [small, large] = first <= second ? [first, second] : [second, first];
        const smallStart = selectRecentTail(messages, {
          budgetTokens: small,
          messageTokens: messages.map(countJsonTokens),
        });
        const largeStart = selectRecentTail(messages, {
          budgetTokens: large,
          messageTokens: messages.map(countJsonTokens),
        });
        expect(largeStart).toBeLessThanOrEqual(smallStart);
      }),
    );
  });

  it('is deterministic and leaves the transcript untouched', () => {
    fc.assert(
      fc.property(transcriptArbitrary(), budget, (messages, budgetTokens) => {
        const before = structuredClone(messages);
        const frozen = deepFreeze(structuredClone(messages));
        const first = selectRecentTail(frozen, { budgetTokens, messageTokens: frozen.map(countJsonTokens) });
        const second = selectRecentTail(messages, { budgetTokens, messageTokens: messages.map(countJsonTokens) });
        expect(first).toBe(second);
        expect(messages).toEqual(before);
      }),
    );
  });
});

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}
