import { waitForRunningCommands, workspaceArtifactHashes } from '@forge/tools';
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
    approvals: setup.approvals,
    ...(setup.mcp === undefined ? {} : { mcp: setup.mcp }),
    async runTurn(session, turn) {
      const surface = await setup.surface(session === undefined ? undefined : sessionSizeOf(session), model, context);
      const options = {
        model,
        request: turn.request,
        instructions: setup.instructions(surface),
        tools: surface.tools,
        approvals: turn.approvals,
        context,
        ...(setup.maxSteps === undefined ? {} : { maxSteps: setup.maxSteps }),
        signal: turn.signal,
        onEvent: (envelope: EventEnvelope) => {
          setup.calibration.observe(envelope.event);
          turn.onEvent(envelope);
        },
      };
      try {
        // --no-session stores nothing: calibration then only lives for this process.
        if (session === undefined) return { result: await runAgent(options), warnings: [] };
        try {
          const stored = await session.runTurn({
            ...options,
            artifactHashes: workspaceArtifactHashes(setup.root, { ledger: setup.ledger }),
            compaction: { ...(await setup.compaction()), ...surface.compaction },
          });
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
    contextSubject: (session) => contextSubjectOf(setup, session, model, context),
    start: async () => {},
    close: async () => {
      await setup.mcp?.close();
    },
  };
}
