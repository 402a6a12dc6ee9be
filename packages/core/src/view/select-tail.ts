import { InvalidInputError } from '../errors.js';
import type { Message } from '../messages.js';
import { splitIntoGroups, type MessageGroup } from './groups.js';

export interface TailBudget {
  /** Tokens the verbatim recent tail may use; `Infinity` keeps everything. */
  readonly budgetTokens: number;
  /**
   * Tokens of each message, same order and length as the transcript: the model adapter's
   * `countMessageTokens`, so the tail is cut with the counter that budgets the request.
   */
  readonly messageTokens: readonly number[];
}

/** The tail chosen for a budget, with the group structure and token counts behind the choice. */
export interface TailSelection {
  /** Index of the first message kept; `messages.length` when nothing is kept. */
  readonly tailStart: number;
  readonly groups: readonly MessageGroup[];
  /** Index into `groups` of the first kept group; `groups.length` when nothing is kept. */
  readonly firstKeptGroup: number;
  /** Token cost of each message, same order as the transcript. */
  readonly messageTokens: readonly number[];
  readonly tailTokens: number;
  /**
   * True when the tail exceeds the budget because its last group holds tool calls still waiting
   * for results: that protocol state is kept whatever it costs.
   */
  readonly overBudget: boolean;
}

function checkBudget(budgetTokens: number): void {
  if (Number.isNaN(budgetTokens) || budgetTokens < 0) {
    throw new InvalidInputError({
      message: `The recent-tail budget must be a number of tokens ≥ 0, got ${String(budgetTokens)}.`,
    });
  }
}

function checkCounts(messages: readonly Message[], messageTokens: readonly number[]): void {
  if (messageTokens.length !== messages.length) {
    throw new InvalidInputError({
      message: `messageTokens has ${messageTokens.length} counts for ${messages.length} messages; pass one count per message.`,
    });
  }
  messageTokens.forEach((tokens, index) => {
    if (!Number.isFinite(tokens) || tokens < 0) {
      throw new InvalidInputError({
        message: `messageTokens[${index}] is ${String(tokens)}; every count must be a finite number ≥ 0.`,
      });
    }
  });
}

/**
 * Chooses the longest suffix of complete groups whose tokens fit `budgetTokens`, never cutting
 * inside a group. A last group with pending tool calls is always kept, even over budget. The
 * same transcript and budget always give the same cut, and a larger budget never keeps less.
 * The input is not modified.
 */
export function selectTail(messages: readonly Message[], budget: TailBudget): TailSelection {
  checkBudget(budget.budgetTokens);
  const { messageTokens } = budget;
  checkCounts(messages, messageTokens);
  const groups = splitIntoGroups(messages);
  let tailTokens = 0;
  let firstKeptGroup = groups.length;
  for (let index = groups.length - 1; index >= 0; index -= 1) {
    const group = groups[index] as MessageGroup;
    let cost = 0;
    for (let position = group.start; position < group.end; position += 1) cost += messageTokens[position] ?? 0;
    const mandatory = index === groups.length - 1 && group.pendingToolCalls > 0;
    if (!mandatory && tailTokens + cost > budget.budgetTokens) break;
    tailTokens += cost;
    firstKeptGroup = index;
  }
  const tailStart = groups[firstKeptGroup]?.start ?? messages.length;
  return { tailStart, groups, firstKeptGroup, messageTokens, tailTokens, overBudget: tailTokens > budget.budgetTokens };
}

/**
 * Start index of the recent verbatim tail for `budgetTokens`: the longest suffix of complete
 * groups that fits (see {@link selectTail}). `messages.slice(result)` is the tail.
 */
export function selectRecentTail(messages: readonly Message[], budget: TailBudget): number {
  return selectTail(messages, budget).tailStart;
}
