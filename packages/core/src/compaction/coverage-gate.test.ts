import { describe, expect, it } from 'vitest';
import { buildForgeStateCheckpoint } from '../checkpoint/build.js';
import { CHECKPOINT_CAPS } from '../checkpoint/caps.js';
import { assistant, emptyStructuredSummary, user } from '../checkpoint/fixtures.test-helpers.js';
import type { ContextCheckpoint } from '../checkpoint/schema.js';
import type { TokenEstimate } from '../model/adapter.js';
import { finishCheckpoint } from './built-checkpoint.js';
import type { CompactTranscriptOptions } from './compact-transcript.js';
import { ensureCoverage } from './coverage-gate.js';
import type { CompactionEvent } from './events.js';

const transcript = [
  user('Write the parser; never use eval.'),
  assistant('Started.'),
  user('Add tests.'),
  assistant('Added.'),
  user('Now the docs.'),
  assistant('Done.'),
];
const estimate: TokenEstimate = {
  tokens: 100,
  method: 'conservative-fallback',
  confidence: 'estimated',
  categories: { checkpoint: 40 } as TokenEstimate['categories'],
};

function gate(events: CompactionEvent[]) {
  return {
    transcript,
    redact: (text: string) => text,
    step: 2,
    trigger: 'threshold',
    emit: (event: CompactionEvent) => events.push(event),
  } as unknown as CompactTranscriptOptions;
}

const input = {
  caps: CHECKPOINT_CAPS,
  estimate: async () => estimate,
  withCheckpoint: () => ({
    instructions: '',
    history: [],
    currentRequest: { role: 'user' as const, content: '' },
    continuation: [],
    tools: [],
  }),
};

describe('ensureCoverage', () => {
  const base = buildForgeStateCheckpoint({ transcript, tailStart: 4, redact: (text) => text, requests: 'all' });

  it('passes a checkpoint that covers the record without an event', async () => {
    const events: CompactionEvent[] = [];
    const chosen = { built: finishCheckpoint(base, CHECKPOINT_CAPS), estimate };
    expect(await ensureCoverage(gate(events), { ...input, chosen })).toMatchObject({
      kind: 'covered',
      fellBack: false,
      built: { id: chosen.built.id },
    });
    expect(events).toEqual([]);
  });

  it('refuses a compactor checkpoint it cannot repair, falls back to forge-state, and says both', async () => {
    const { digest: _digest, ...rest } = base;
    // A task pointing before the requests it should follow: no earlier request can be added after it.
    const broken: ContextCheckpoint = {
      ...rest,
      strategy: 'model-structured',
      state: {
        ...base.state,
        task: { text: 'Write the parser', evidence: { source: 'user', messageIndex: 0 } },
        earlierRequests: undefined,
      } as ContextCheckpoint['state'],
      structured: emptyStructuredSummary(),
    };
    delete (broken.state as { earlierRequests?: unknown }).earlierRequests;
    const events: CompactionEvent[] = [];
    const fallback = { built: finishCheckpoint(base, CHECKPOINT_CAPS), estimate };
    const outcome = await ensureCoverage(gate(events), {
      ...input,
      chosen: { built: finishCheckpoint(broken, CHECKPOINT_CAPS), estimate },
      fallback,
    });
    expect(outcome).toMatchObject({ kind: 'covered', fellBack: true, built: { id: fallback.built.id } });
    expect(events).toMatchObject([
      {
        type: 'context.checkpoint.coverage',
        strategy: 'model-structured',
        outcome: 'refused',
        fallback: 'forge-state',
        items: [{ kind: 'request', seq: 2, text: 'Add tests.' }],
      },
      { type: 'context.compaction.failed', strategy: 'model-structured', reason: 'coverage', fallback: 'forge-state' },
    ]);
    // With nothing to fall back to, the compaction is refused.
    const alone = await ensureCoverage(gate([]), {
      ...input,
      chosen: { built: finishCheckpoint(broken, CHECKPOINT_CAPS), estimate },
    });
    expect(alone).toMatchObject({ kind: 'refused', message: expect.stringContaining('request #2 "Add tests."') });
  });
});
