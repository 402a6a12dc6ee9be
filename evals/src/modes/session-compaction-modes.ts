import type { EventEnvelope } from '@forge/core';
import type { CompactionStrategySetting } from '@forge/core/compaction';
import { compactionFacts } from './compaction-events.js';
import { EvalSession } from './eval-session.js';
import type { ModeContext, ModeId, ModeRunner } from './types.js';

/*
 * Modes `shadow` and `compact` as the product runs them: `SessionHandle.runTurn` with the session's
 * own view (checkpoint + recent tail), its automatic compaction (planner, cost gate, guard, overflow
 * recovery inside the run) and its durable checkpoint install. The harness only reads the events.
 */

function sessionMode(options: {
  readonly id: ModeId;
  readonly label: string;
  readonly mode: 'shadow' | 'compact';
  readonly strategy: (context: ModeContext) => CompactionStrategySetting;
  readonly implementation: string;
}): ModeRunner {
  return {
    id: options.id,
    label: options.label,
    family: 'forge',
    compacts: options.mode === 'compact',
    offersContextTools: true,
    implementation: options.implementation,
    async start(context) {
      const session = await EvalSession.open(context);
      const compaction = { strategy: options.strategy(context) };
      return {
        async runTurn(turn) {
          const events: EventEnvelope[] = [];
          const result = await session.runStored(turn, options.mode, events, { compaction });
          const facts = compactionFacts(turn.index, events);
          return {
            result,
            compactions: facts.compactions,
            noProgressStops: facts.noProgressStops,
            overflowRecoveries: facts.overflowRecoveries,
            compactionFailures: facts.failures,
            toolOutputProjections: facts.projections,
            memoryTexts: [],
            events,
          };
        },
        async restart() {
          // The stored checkpoint must come back as it was, and still be usable.
          const before = session.storedCheckpointHash();
          await session.restart();
          const after = session.storedCheckpointHash();
          return after === before && after?.startsWith('unusable') !== true
            ? []
            : ['checkpoint-changed-across-restart'];
        },
        close: () => session.close(),
      };
    },
  };
}

const SESSION =
  'SessionHandle.runTurn with the session view (checkpoint + every message after it) and automatic compaction past compactAtRatio';

export const shadowSessionMode = sessionMode({
  id: 'shadow',
  label: 'shadow: checkpoints built and validated, never installed',
  mode: 'shadow',
  strategy: () => ({ kind: 'forge-state' }),
  implementation: `${SESSION}, mode shadow`,
});

export const compactForgeStateMode = sessionMode({
  id: 'compact:forge-state',
  label: 'compact (forge-state): deterministic checkpoint + recent tail',
  mode: 'compact',
  strategy: () => ({ kind: 'forge-state' }),
  implementation: `${SESSION}, strategy forge-state`,
});

export const compactModelStructuredMode = sessionMode({
  id: 'compact:model-structured',
  label: 'compact (model-structured): a compactor model writes the structured checkpoint',
  mode: 'compact',
  strategy: (context) => ({ kind: 'model-structured', compactor: context.summaryModel }),
  implementation: `${SESSION}, strategy model-structured (the policy model as compactor)`,
});

export const compactProviderNativeMode = sessionMode({
  id: 'compact:provider-native',
  label: 'compact (provider-native): the provider compacts, Forge keeps the opaque item',
  mode: 'compact',
  strategy: () => ({ kind: 'provider-native' }),
  implementation: `${SESSION}, strategy provider-native (the policy provider's own compaction)`,
});
