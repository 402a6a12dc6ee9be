import {
  DEFAULT_CONTEXT_POLICY,
  type InstructionSnapshot,
  type Message,
  type ModelAdapter,
  type ToolDefinition,
} from '@forge/core';
import { computeContextBudget } from '@forge/core/budget';
import type { ExpandedTurn } from '../fixture/expand.js';
import type { ModeContext } from './types.js';

/** Tokens of the messages with their framing, by the model adapter's own counter. */
export async function messagesTokens(model: ModelAdapter, messages: readonly Message[]): Promise<number> {
  const counts = await model.countMessageTokens(messages);
  return counts.reduce((total, tokens) => total + tokens, 0);
}

/** The input budget a runner keeps the view under before the turn starts. */
export interface TurnBudget {
  /** Tokens of what every request of the turn carries anyway: instructions, the request, tool schemas. */
  readonly baseTokens: number;
  /** A runner compacts (or truncates) when base plus view would pass this. */
  readonly thresholdTokens: number;
}

/**
 * The budget for a turn, as core's `computeContextBudget` reckons it for a request of the turn's
 * fixed parts: the available input (the window less the single output reserve, within the
 * model's caps) times `warnAtRatio` — the point where `warn` mode starts warning, which leaves the
 * rest of the window for what the turn itself adds.
 */
export async function turnBudget(
  context: ModeContext,
  model: ModelAdapter,
  instructions: InstructionSnapshot,
  turn: ExpandedTurn,
  tools: readonly ToolDefinition[],
): Promise<TurnBudget> {
  const estimate = await model.estimateRequestTokens({
    instructions: instructions.text,
    history: [],
    currentRequest: { role: 'user', content: turn.message },
    continuation: [],
    tools,
  });
  const budget = computeContextBudget({
    capabilities: model.capabilities,
    estimate,
    policy: { ...DEFAULT_CONTEXT_POLICY, ...context.policy, mode: 'warn' },
  });
  return { baseTokens: estimate.tokens, thresholdTokens: budget.warnAtTokens };
}
