import { waitForRunningCommands } from '@forge/tools';
import { runAgent, type ContextMode, type ContextPolicy, type EventEnvelope, type ModelAdapter } from '@forge/core';
import { contextSubjectOf, sessionSizeOf, type AgentSetup } from '../agent/agent-setup.js';
import type { TurnEngine } from './turn-engine.js';

/**
 * Forge's own loop (`runAgent`) with the model, tools, instructions and context policy of
 * `setup`. The model and the context mode can be switched between turns (`/model`, `/mode`).
 * A turn ends only once the commands it ran have ended: a cancelled one waits for them to be
 * stopped, so Forge never exits, nor starts the next turn, with a command of the last one running.
 */
export function createNativeEngine(setup: AgentSetup): TurnEngine {
  let model: ModelAdapter = setup.model;
  let modelName = setup.modelName;
  let context: ContextPolicy = setup.context;
  return {
    name: 'native',
    get modelLabel() {
      return modelName;
    },
    get contextMode() {
      return context.mode;
    },
    root: setup.root,
    approvals: setup.agent.approvals,
    ...(setup.mcp === undefined ? {} : { mcp: setup.mcp }),
    async runTurn(session, turn) {
      // A tools/list_changed that arrived during the last turn is offered from this one.
      await setup.mcp?.settled();
      const onEvent = (envelope: EventEnvelope) => {
        setup.calibration.observe(envelope.event);
        turn.onEvent(envelope);
      };
      const maxSteps = setup.maxSteps === undefined ? {} : { maxSteps: setup.maxSteps };
      try {
        // --no-session stores nothing: calibration then only lives for this process.
        if (session === undefined) {
          const surface = await setup.surface(undefined, model, context);
          const instructions = setup.instructions(surface);
          const common = { model, request: turn.request, tools: surface.tools, approvals: turn.approvals };
          return {
            result: await runAgent({ ...common, instructions, context, ...maxSteps, signal: turn.signal, onEvent }),
            warnings: [],
          };
        }
        try {
          const options = await setup.agent.storedTurn({
            request: turn.request,
            model,
            context,
            session: sessionSizeOf(session),
            compaction: await setup.compaction(),
            approvals: turn.approvals,
            ...maxSteps,
            signal: turn.signal,
            onEvent,
          });
          const stored = await session.runTurn(options);
          return { result: stored.result, warnings: stored.warnings };
        } finally {
          await setup.calibration.flush();
        }
      } finally {
        await waitForRunningCommands();
      }
    },
    async switchModel(name: string) {
      model = await setup.resolveModel(name, '/model');
      modelName = name;
    },
    setContextMode(mode: ContextMode) {
      context = { ...context, mode };
    },
    sessionCompaction: () => setup.compaction(),
    contextSubject: async (session) => {
      await setup.mcp?.settled();
      return contextSubjectOf(setup, session, model, context);
    },
    start: async () => {},
    close: async () => {
      await setup.mcp?.close();
    },
  };
}
