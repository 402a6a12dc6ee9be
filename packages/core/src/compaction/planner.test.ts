import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitIntoGroups } from '../view/groups.js';
import { countJsonTokens, transcriptArbitrary } from '../view/transcript-arbitrary.test-helpers.js';
import { planCompaction, tailBudgets } from './planner.js';

describe('planCompaction', () => {
  it('summarizes only a contiguous prefix that ends on a group boundary before the running turn (invariant 4)', () => {
    fc.assert(
      fc.property(
        transcriptArbitrary(),
        fc.integer({ min: 0, max: 300 }),
        fc.nat(),
        (messages, tailBudgetTokens, cut) => {
          const protectedFrom = messages.length === 0 ? 0 : cut % (messages.length + 1);
          const before = structuredClone(messages);
          const plan = planCompaction({
            messages,
            protectedFrom,
            tailBudgetTokens,
            messageTokens: messages.slice(0, protectedFrom).map(countJsonTokens),
          });
          expect(messages).toEqual(before);
          if (plan.kind === 'skip') return;
          expect(plan.tailStart).toBeGreaterThan(0);
          expect(plan.tailStart).toBeLessThanOrEqual(protectedFrom);
          const boundaries = new Set(splitIntoGroups(messages.slice(0, protectedFrom)).map((group) => group.start));
          expect(boundaries.has(plan.tailStart) || plan.tailStart === protectedFrom).toBe(true);
          expect(messages[plan.tailStart]?.role).not.toBe('tool');
          // A tail never starts inside a turn when a turn boundary follows: the checkpoint holds whole turns.
          const turnFollows = [...boundaries].some(
            (start) => start >= plan.tailStart && messages[start]?.role === 'user',
          );
          if (turnFollows) expect(messages[plan.tailStart]?.role).toBe('user');
        },
      ),
    );
  });

  it("keeps the latest request with its answer: a tail that would hold only the answer moves to the next turn's start", () => {
    const messages = [
      { role: 'user' as const, content: 'first request' },
      { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'first answer' }] },
      { role: 'user' as const, content: 'latest request '.repeat(50) },
      { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'latest answer' }] },
    ];
    const plan = planCompaction({
      messages,
      protectedFrom: 4,
      tailBudgetTokens: 20,
      messageTokens: [5, 5, 200, 10],
    });
    // The answer alone fits the tail; its request does not. Summarizing the request without its answer would split the turn.
    expect(plan).toMatchObject({ kind: 'compact', tailStart: 4 });
  });

  it('reuses the current checkpoint when the turns after it still fit the tail', () => {
    const messages = Array.from({ length: 10 }, (_, index) => ({ role: 'user' as const, content: `turn ${index}` }));
    expect(
      planCompaction({
        messages,
        protectedFrom: 10,
        summarizedThrough: 6,
        tailBudgetTokens: 40,
        messageTokens: Array(4).fill(10),
      }),
    ).toMatchObject({ kind: 'skip', reason: 'reused' });
    expect(
      planCompaction({
        messages,
        protectedFrom: 10,
        summarizedThrough: 4,
        tailBudgetTokens: 40,
        messageTokens: Array(6).fill(10),
      }),
    ).toMatchObject({
      kind: 'compact',
      tailStart: 6,
      newlySummarized: { start: 4, end: 6 },
    });
    expect(
      planCompaction({ messages, protectedFrom: 10, tailBudgetTokens: 1_000, messageTokens: Array(10).fill(10) }),
    ).toMatchObject({ kind: 'skip', reason: 'nothing_to_compact' });
  });
});

describe('tailBudgets', () => {
  it('halves from the configured tail down to the documented floor', () => {
    expect(tailBudgets(12_000)).toEqual([12_000, 6_000, 3_000, 2_000]);
    expect(tailBudgets(1_000)).toEqual([1_000]);
    expect(tailBudgets(5_000, 0)).toEqual([5_000, 2_500, 1_250, 625, 312, 156, 78, 39, 19, 9, 4, 2, 1, 0]);
  });
});
