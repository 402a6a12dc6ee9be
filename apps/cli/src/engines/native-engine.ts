import { runAgent } from '@forge/core';
import type { AgentSetup } from '../agent/agent-setup.js';
import type { TurnEngine } from './turn-engine.js';

/** Forge's own loop (`runAgent`) with the model, tools and instructions of `setup`. */
export function createNativeEngine(setup: AgentSetup): TurnEngine {
  return {
    name: 'native',
    modelLabel: setup.modelName,
    root: setup.root,
    approvals: setup.approvals,
    async runTurn(session, turn, recentTailTokens) {
      const options = {
        model: setup.model,
        request: turn.request,
        instructions: setup.instructions,
        tools: setup.tools,
        approvals: turn.approvals,
        ...(setup.maxSteps === undefined ? {} : { maxSteps: setup.maxSteps }),
        signal: turn.signal,
        onEvent: turn.onEvent,
      };
      if (session === undefined) return { result: await runAgent(options), warnings: [] };
      const stored = await session.runTurn({ ...options, recentTailTokens });
      return { result: stored.result, warnings: stored.warnings };
    },
    start: async () => {},
    close: async () => {},
  };
}
