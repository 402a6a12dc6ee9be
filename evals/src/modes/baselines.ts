import type { EventEnvelope, Message } from '@forge/core';
import { selectRecentTail } from '@forge/core/view';
import type { ExpandedTurn } from '../fixture/expand.js';
import { SUMMARY_REQUEST } from '../policy/summaries.js';
import { EvalSession } from './eval-session.js';
import { modeSession, turnResult } from './mode-session.js';
import type { CompactionRecord, ModeContext, ModeRunner } from './types.js';
import { messagesTokens, turnBudget, type TurnBudget } from './view-budget.js';

/*
 * Naive baselines, for comparison with Forge's modes on the same fixtures. Both keep the stored
 * transcript intact and change only what is sent.
 */

function historyBudget(context: ModeContext, budget: TurnBudget): number {
  return context.fixture.fixture.context.historyBudgetTokens ?? Math.max(0, budget.thresholdTokens - budget.baseTokens);
}

/** Sliding window: the most recent complete messages that fit the history budget, nothing else. */
export const slidingWindowMode: ModeRunner = {
  id: 'baseline:sliding-window',
  label: 'baseline: sliding window (recent messages that fit, older ones dropped)',
  family: 'baseline',
  compacts: true,
  offersContextTools: false,
  implementation: 'selectRecentTail over the stored transcript with the history budget; no memory of what was dropped',
  async start(context) {
    const session = await EvalSession.open(context);
    return modeSession(session, async (turn: ExpandedTurn) => {
      const budget = await turnBudget(
        context,
        context.model,
        await (
          await session.instructions('warn')
        )(),
        turn,
        await session.toolDefinitions('warn'),
      );
      const messages = session.messages;
      const start = selectRecentTail(messages, {
        budgetTokens: historyBudget(context, budget),
        messageTokens: await context.model.countMessageTokens(messages),
      });
      const events: EventEnvelope[] = [];
      return turnResult(
        await session.runWithView(turn, 'warn', { history: messages.slice(start) }, events, context.model),
        events,
      );
    });
  },
};

const SUMMARY_INSTRUCTIONS =
  'You are handing this conversation over to another agent. Write a short summary of the work so far: what the user wants, ' +
  'what they asked you to respect, what was tried and failed, and what you learned.';

const SUMMARY_PREFIX = 'Another agent worked on this task before you. Its summary of the conversation so far:\n';

/**
 * Keep user messages plus a summary, the scheme Codex uses: when the history passes its budget,
 * the model writes a handoff summary, and the new history is the most recent user messages (up to
 * `recentTailTokens`) followed by that summary; assistant and tool messages are dropped.
 */
export const userSummaryMode: ModeRunner = {
  id: 'baseline:user-summary',
  label: 'baseline: keep user messages + model-written summary',
  family: 'baseline',
  compacts: true,
  offersContextTools: false,
  implementation:
    'when the view passes the history budget: one summary call, then recent user messages + the summary replace the older view',
  async start(context) {
    const session = await EvalSession.open(context);
    let kept: Message[] = [];
    let compactedThrough = 0;
    return modeSession(session, async (turn) => {
      const instructions = await (await session.instructions('warn'))();
      const budget = await turnBudget(
        context,
        context.model,
        instructions,
        turn,
        await session.toolDefinitions('warn'),
      );
      const compactions: CompactionRecord[] = [];
      let view = [...kept, ...session.messages.slice(compactedThrough)];
      const before = await messagesTokens(context.model, view);
      let noProgress = 0;
      if (before > historyBudget(context, budget) && view.length > 0) {
        const summary = await summarize(context, instructions.text, view, turn.index);
        if (summary === undefined) noProgress = 1;
        else {
          const users = view.filter(
            (message) => message.role === 'user' && !message.content.startsWith(SUMMARY_PREFIX),
          );
          const chosen: Message[] = [];
          const costs = await context.model.countMessageTokens(users);
          let tokens = 0;
          for (let index = users.length - 1; index >= 0; index -= 1) {
            const message = users[index] as Message;
            const cost = costs[index] ?? 0;
            if (tokens + cost > context.policy.recentTailTokens) break;
            tokens += cost;
            chosen.unshift(message);
          }
          kept = [...chosen, { role: 'user', content: `${SUMMARY_PREFIX}${summary}` }];
          compactedThrough = session.messages.length;
          view = kept;
          compactions.push({
            turn: turn.index,
            reclaimedTokens: before - (await messagesTokens(context.model, view)),
            strategy: 'user-summary',
            kind: 'applied',
          });
        }
      }
      const events: EventEnvelope[] = [];
      const run = await session.runWithView(turn, 'warn', { history: view }, events, context.model);
      const summaryText = kept.at(-1)?.role === 'user' ? [(kept.at(-1) as { content: string }).content] : [];
      return turnResult(run, events, { compactions, noProgressStops: noProgress, memoryTexts: summaryText });
    });
  },
};

async function summarize(
  context: ModeContext,
  instructions: string,
  history: readonly Message[],
  turn: number,
): Promise<string | undefined> {
  context.summaryModel.turn = turn;
  let text = '';
  try {
    for await (const part of context.summaryModel.doStream(
      {
        instructions: SUMMARY_INSTRUCTIONS,
        history,
        currentRequest: {
          role: 'user',
          content: `${SUMMARY_REQUEST}\n${instructions.length > 0 ? 'Leave out the standing instructions; they are reloaded.' : ''}`,
        },
        continuation: [],
        tools: [],
        maxOutputTokens: context.policy.summaryTargetTokens,
      },
      {},
    )) {
      if (part.type === 'text-delta') text += part.delta;
    }
  } catch {
    return undefined;
  }
  return text.length === 0 ? undefined : text;
}
