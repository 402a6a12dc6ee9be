import type { EventEnvelope } from '@forge/core';
import { describe, expect, it } from 'vitest';
import { compactionFacts } from './compaction-events.js';

function envelope(event: Record<string, unknown>): EventEnvelope {
  return { v: 1, runId: 'run_1', seq: 0, time: '2026-01-01T00:00:00.000Z', event } as unknown as EventEnvelope;
}

describe('compactionFacts', () => {
  it('reads installed, shadow, reused, failed and refused compactions and overflow recoveries from events', () => {
    const facts = compactionFacts(4, [
      envelope({
        type: 'context.compaction.completed',
        trigger: 'turn_start',
        strategy: 'forge-state',
        installed: true,
        reused: false,
        reclaimedTokens: 1200,
      }),
      envelope({
        type: 'context.compaction.completed',
        trigger: 'threshold',
        strategy: 'forge-state',
        installed: true,
        reused: true,
        reclaimedTokens: 0,
      }),
      envelope({
        type: 'context.compaction.completed',
        trigger: 'threshold',
        strategy: 'forge-state',
        installed: false,
        reused: false,
        reclaimedTokens: 700,
      }),
      envelope({
        type: 'context.compaction.skipped',
        trigger: 'threshold',
        reason: 'shadow',
        strategy: 'forge-state',
        wouldReclaimTokens: 900,
      }),
      envelope({ type: 'context.compaction.skipped', trigger: 'threshold', reason: 'guard' }),
      envelope({ type: 'context.compaction.skipped', trigger: 'threshold', reason: 'cost_gate' }),
      envelope({
        type: 'context.compaction.failed',
        trigger: 'threshold',
        strategy: 'model-structured',
        reason: 'schema',
      }),
      envelope({
        type: 'context.compaction.completed',
        trigger: 'overflow',
        strategy: 'tool-output-projection',
        installed: true,
        reused: false,
        projectedOutputs: 2,
      }),
      envelope({ type: 'model.step.started', step: 1 }),
    ]);
    expect(facts.compactions).toEqual([
      { turn: 4, reclaimedTokens: 1200, strategy: 'forge-state', kind: 'applied' },
      { turn: 4, reclaimedTokens: 700, strategy: 'forge-state', kind: 'shadow' },
      { turn: 4, reclaimedTokens: 900, strategy: 'forge-state', kind: 'shadow' },
    ]);
    expect(facts).toMatchObject({ noProgressStops: 1, overflowRecoveries: 1, failures: 1, projections: 2 });
  });
});
