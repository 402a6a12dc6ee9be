import type { Message } from '../messages.js';
import { selectTail } from '../view/select-tail.js';

/**
 * The floor of the recent tail: when a compaction must bring the request down to its target, the
 * tail budget is halved from `recentTailTokens` until it does, but never below this many tokens
 * (nor above `recentTailTokens`). A request that does not fit even then stops with
 * `limit_reached` instead of being sent without the last exchanges verbatim.
 */
export const TAIL_FLOOR_TOKENS = 2_000;

export interface CompactionPlanInput {
  /** The canonical transcript, oldest first. */
  readonly messages: readonly Message[];
  /**
   * Messages from this index on belong to the running turn (its request and tool calls) and are
   * never summarized. Between turns, the transcript's length.
   */
  readonly protectedFrom: number;
  /** End of the range the current checkpoint summarizes, when the session has one. */
  readonly summarizedThrough?: number;
  /** Tokens the verbatim recent tail may use. */
  readonly tailBudgetTokens: number;
  /**
   * Tokens of each message from `summarizedThrough` (or 0) up to `protectedFrom`, by the model
   * adapter's `countMessageTokens`: only messages after the current checkpoint can join a tail.
   */
  readonly messageTokens: readonly number[];
}

export type CompactionPlan =
  | {
      readonly kind: 'skip';
      /** `nothing_to_compact`: the completed turns fit the tail; `reused`: the current checkpoint already covers the range. */
      readonly reason: 'nothing_to_compact' | 'reused';
      readonly tailStart: number;
      readonly message: string;
    }
  | {
      readonly kind: 'compact';
      /** Messages `[0, tailStart)` become the checkpoint; `[tailStart, protectedFrom)` stay verbatim. */
      readonly tailStart: number;
      /** What the new checkpoint adds to what the current one summarizes. */
      readonly newlySummarized: { readonly start: number; readonly end: number };
      readonly tailTokens: number;
    };

/**
 * Where the tail starts once moved to a turn boundary: the first kept group (or a later one) that
 * opens with a user message, or `end`. A tail that would start inside a turn (its answer kept,
 * its request summarized) starts at the next turn instead, so the checkpoint holds only completed
 * turns, each whole. Offsets are into `candidates`, which start at message `offset`.
 */
function tailAtTurnStart(
  selection: ReturnType<typeof selectTail>,
  candidates: readonly Message[],
  offset: number,
  end: number,
  messages: readonly Message[],
): number {
  for (let index = selection.firstKeptGroup; index < selection.groups.length; index += 1) {
    const start = selection.groups[index]?.start ?? candidates.length;
    if (candidates[start]?.role === 'user') return offset + start;
  }
  // `end` is the running turn's request, or the end of the transcript; anything else is no turn boundary to move to.
  return end === messages.length || messages[end]?.role === 'user' ? end : offset + selection.tailStart;
}

/**
 * Plans a compaction: the contiguous prefix of completed turns older than the recent tail. The
 * tail is the longest run of whole groups before the running turn that fits the budget (a tool
 * call is never separated from its result, nor reasoning from its item), moved forward to the
 * next turn's request when it would start inside a turn, so the prefix ends on a turn boundary.
 * Pure: the same transcript and budget give the same plan.
 */
export function planCompaction(input: CompactionPlanInput): CompactionPlan {
  const end = Math.max(0, Math.min(input.protectedFrom, input.messages.length));
  const previous = Math.min(input.summarizedThrough ?? 0, end);
  const candidates = input.messages.slice(previous, end);
  const selection = selectTail(candidates, {
    budgetTokens: input.tailBudgetTokens,
    messageTokens: input.messageTokens,
  });
  const tailStart = tailAtTurnStart(selection, candidates, previous, end, input.messages);
  if (input.summarizedThrough !== undefined && input.summarizedThrough > 0 && tailStart <= previous) {
    return {
      kind: 'skip',
      reason: 'reused',
      tailStart: previous,
      message: `the current checkpoint already summarizes messages [0, ${previous}); the turns after it fit the recent tail`,
    };
  }
  if (tailStart === 0) {
    return {
      kind: 'skip',
      reason: 'nothing_to_compact',
      tailStart,
      message: 'every completed turn fits the recent tail; there is nothing older to summarize',
    };
  }
  return {
    kind: 'compact',
    tailStart,
    newlySummarized: { start: previous, end: tailStart },
    tailTokens: selection.tailTokens,
  };
}

/**
 * The tail budgets to try when a request must fit: `recentTailTokens`, then halves of it, then
 * the floor (each at most `recentTailTokens`), without repeats.
 */
export function tailBudgets(recentTailTokens: number, floorTokens: number = TAIL_FLOOR_TOKENS): number[] {
  const floor = Math.max(0, Math.min(floorTokens, recentTailTokens));
  const budgets: number[] = [];
  for (let budget = recentTailTokens; budget > floor; budget = Math.floor(budget / 2)) budgets.push(budget);
  budgets.push(floor);
  return budgets;
}
