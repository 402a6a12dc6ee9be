import {
  countMessageTokensConservatively,
  type InstructionSnapshot,
  type Message,
  type ModelAdapter,
  type ToolDefinition,
} from '@forge/core';
import type { ExpandedTurn } from '../fixture/expand.js';
import type { ModeContext } from './types.js';

/** Tokens of one message with its framing, as the conservative estimator counts it. */
export function messageTokens(message: Message): number {
  return countMessageTokensConservatively(message);
}

export function messagesTokens(messages: readonly Message[]): number {
  let total = 0;
  for (const message of messages) total += messageTokens(message);
  return total;
}

/** The input budget a runner keeps the view under before the turn starts. */
export interface TurnBudget {
  /** Tokens of what every request of the turn carries anyway: instructions, the request, tool schemas. */
  readonly baseTokens: number;
  /** A runner compacts (or truncates) when base plus view would pass this. */
  readonly thresholdTokens: number;
}

/**
 * The budget for a turn: the model's window less the single output reserve (`max(reserved
 * output, buffer)`), times `warnAtRatio` — the point where `warn` mode starts warning, which
 * leaves the rest of the window for what the turn itself adds.
 */
export async function turnBudget(
  context: ModeContext,
  model: ModelAdapter,
  instructions: InstructionSnapshot,
  turn: ExpandedTurn,
  tools: readonly ToolDefinition[],
): Promise<TurnBudget> {
  const { policy } = context;
  const available = model.capabilities.contextWindowTokens - Math.max(policy.reservedOutputTokens, policy.bufferTokens);
  const estimate = await model.estimateRequestTokens({
    instructions: instructions.text,
    history: [],
    currentRequest: { role: 'user', content: turn.message },
    continuation: [],
    tools,
  });
  return { baseTokens: estimate.tokens, thresholdTokens: Math.floor(available * policy.warnAtRatio) };
}
