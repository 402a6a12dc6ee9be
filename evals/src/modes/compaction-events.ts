import type { EventEnvelope } from '@forge/core';
import type { CompactionRecord } from './types.js';

/** What a turn's events say about compaction: the records and counters a mode reports. */
export interface CompactionFacts {
  readonly compactions: CompactionRecord[];
  readonly noProgressStops: number;
  readonly overflowRecoveries: number;
  /** Strategies that failed (the deterministic one took over, or nothing changed). */
  readonly failures: number;
  /** Old tool outputs replaced by their bounded projection. */
  readonly projections: number;
}

interface EventBody {
  readonly type: string;
  readonly [field: string]: unknown;
}

/**
 * Reads the `context.compaction.*` events of a turn. Installed checkpoints are compactions;
 * checkpoints built in shadow mode are shadow compactions; a refusal by the no-progress guard or
 * for lack of savings is a no-progress stop; anything installed after a provider overflow (a
 * checkpoint or a projection of old tool outputs) is an overflow recovery.
 */
export function compactionFacts(turn: number, events: readonly EventEnvelope[]): CompactionFacts {
  const facts: CompactionFacts = {
    compactions: [],
    noProgressStops: 0,
    overflowRecoveries: 0,
    failures: 0,
    projections: 0,
  };
  let noProgress = 0;
  let recoveries = 0;
  let failures = 0;
  let projections = 0;
  for (const envelope of events) {
    const event = envelope.event as unknown as EventBody;
    if (event.type === 'context.compaction.completed') {
      if (event['trigger'] === 'overflow' && event['installed'] === true) recoveries += 1;
      if (event['strategy'] === 'tool-output-projection') {
        projections += typeof event['projectedOutputs'] === 'number' ? event['projectedOutputs'] : 1;
        continue;
      }
      if (event['reused'] === true) continue;
      const reclaimed = typeof event['reclaimedTokens'] === 'number' ? event['reclaimedTokens'] : 0;
      facts.compactions.push({
        turn,
        reclaimedTokens: reclaimed,
        strategy: String(event['strategy']),
        kind: event['installed'] === true ? 'applied' : 'shadow',
      });
    } else if (event.type === 'context.compaction.skipped') {
      if (event['reason'] === 'shadow') {
        facts.compactions.push({
          turn,
          reclaimedTokens: typeof event['wouldReclaimTokens'] === 'number' ? event['wouldReclaimTokens'] : 0,
          strategy: String(event['strategy'] ?? 'forge-state'),
          kind: 'shadow',
        });
      }
      if (event['reason'] === 'guard' || event['reason'] === 'no_savings') noProgress += 1;
    } else if (event.type === 'context.compaction.failed') {
      failures += 1;
    }
  }
  return { ...facts, noProgressStops: noProgress, overflowRecoveries: recoveries, failures, projections };
}
