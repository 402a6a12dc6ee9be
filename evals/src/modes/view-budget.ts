import type { InstructionSnapshot, Message, ModelAdapter, ToolDefinition } from '@forge/core';
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
