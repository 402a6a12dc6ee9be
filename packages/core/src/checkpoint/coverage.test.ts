import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitIntoGroups } from '../view/groups.js';
import { buildForgeStateCheckpoint } from './build.js';
import { CHECKPOINT_CAPS, type CheckpointCaps } from './caps.js';
import { missingCoverage, repairCoverage } from './coverage.js';
import {
  editFile,
  emptyStructuredSummary,
  redactSecrets,
  runCommand,
  user,
  assistant,
} from './fixtures.test-helpers.js';
import type { CheckpointTranscriptEntry } from './host-metadata.js';
import type { ContextCheckpoint } from './schema.js';
import { bugfixSession } from './sessions.test-helpers.js';
import { capsArbitrary, checkpointTranscriptArbitrary } from './transcript-arbitrary.test-helpers.js';
import { validateCheckpoint } from './validate.js';
import { renderCheckpointView } from './view.js';

function build(
  transcript: readonly CheckpointTranscriptEntry[],
  tailStart: number,
  requests: 'latest' | 'all' = 'all',
  caps: CheckpointCaps = CHECKPOINT_CAPS,
) {
  return buildForgeStateCheckpoint({ transcript, tailStart, redact: redactSecrets, requests, caps });
}

/** A checkpoint with its strategy payload swapped for a compactor's summary that names nothing. */
function asStructured(checkpoint: ReturnType<typeof build>): ContextCheckpoint {
  const { digest: _digest, ...rest } = checkpoint;
  const structured = emptyStructuredSummary();
  return { ...rest, strategy: 'model-structured', structured };
}

const session = [
  user('Fix add() in src/math.js. do not change the test file; keep the public API of src/math.js unchanged.', 'run_1'),
  ...runCommand('t1', ['npm', 'test'], 1, 'FAIL add() returns 3 for 1 + 1', 'run_1'),
  ...editFile('e1', 'src/math.js', 'return a + b + 1', 'return a + b', 'run_1'),
  ...runCommand('t2', ['npm', 'test'], 0, 'ok', 'run_1'),
  assistant('Fixed the failing add() test.', [], 'run_1'),
  user('Now add subtract().', 'run_2'),
  assistant('Done.', [], 'run_2'),
];

describe('the coverage check', () => {
  it('finds nothing missing in a deterministic checkpoint that keeps every request', () => {
    expect(missingCoverage(build(session, 9), session, redactSecrets)).toEqual([]);
    const { transcript, tailStart } = bugfixSession();
    expect(missingCoverage(build(transcript, tailStart), transcript, redactSecrets)).toEqual([]);
  });

  it('names every request, constraint, failure and edited file a checkpoint lost, and repairs them all', () => {
    const built = build(session, 9);
    const stripped: ContextCheckpoint = {
      ...asStructured(built),
      state: {
        ...built.state,
        earlierRequests: undefined,
        failures: [],
        changedFiles: [],
      } as ContextCheckpoint['state'],
      memory: { ...built.memory, constraints: [] },
    };
    delete (stripped.state as { earlierRequests?: unknown }).earlierRequests;
    expect(missingCoverage(stripped, session, redactSecrets)).toEqual([
      {
        kind: 'request',
        seq: 0,
        text: 'Fix add() in src/math.js. do not change the test file; keep the public API of src/math.js unchanged.',
      },
      { kind: 'constraint', seq: 0, text: 'do not change the test file' },
      { kind: 'constraint', seq: 0, text: 'keep the public API of src/math.js unchanged' },
      { kind: 'failure', seq: 2, text: '`npm test`: exit code 1: FAIL add() returns 3 for 1 + 1' },
      { kind: 'changed_file', seq: 4, text: 'src/math.js' },
    ]);
    const repair = repairCoverage(stripped, session, redactSecrets);
    expect(repair.unrepaired).toEqual([]);
    expect(validateCheckpoint(repair.checkpoint, session.length)).toMatchObject({ ok: true });
    const view = renderCheckpointView(repair.checkpoint);
    expect(view).toContain('- earlier user request (user#0): Fix add() in src/math.js.');
    expect(view).toContain('- keep the public API of src/math.js unchanged (from user#0)');
    expect(view).toContain(
      '- tried `npm test`; failed because exit code 1: FAIL add() returns 3 for 1 + 1 (historical, run_1, #2)',
    );
    expect(view).toContain('[CHANGED_FILES]\n- src/math.js');
  });

  it('only asks for what the summarized messages hold, and counts a digest line that quotes it', () => {
    // The digest quotes user#0 whole, constraints included.
    expect(missingCoverage(build(session, 9, 'latest'), session, redactSecrets)).toEqual([]);
    // Without a digest only user#0 and its constraints are missing: the failure, the edit and user#7 come after the summarized message.
    expect(
      missingCoverage(asStructured(build(session, 1, 'latest')), session, redactSecrets).map((item) => [
        item.kind,
        item.seq,
      ]),
    ).toEqual([
      ['request', 0],
      ['constraint', 0],
      ['constraint', 0],
    ]);
  });

  it('leaves any checkpoint of any session covered after repair, valid, within its caps, the same bytes twice', () => {
    const sessions = checkpointTranscriptArbitrary().chain((transcript) => {
      const starts = [
        ...splitIntoGroups(transcript.map((entry) => entry.message)).map((group) => group.start),
        transcript.length,
      ];
      return fc
        .tuple(
          fc.constantFrom(...starts),
          capsArbitrary,
          fc.constantFrom<'latest' | 'all'>('latest', 'all'),
          fc.boolean(),
        )
        .map(([tailStart, caps, requests, structured]) => ({ transcript, tailStart, caps, requests, structured }));
    });
    fc.assert(
      fc.property(sessions, ({ transcript, tailStart, caps, requests, structured }) => {
        const built = build(transcript, tailStart, requests, caps);
        const checkpoint = structured ? asStructured(built) : built;
        const repair = repairCoverage(checkpoint, transcript, redactSecrets, caps);
        expect(repair.unrepaired).toEqual([]);
        expect(missingCoverage(repair.checkpoint, transcript, redactSecrets, caps)).toEqual([]);
        expect(validateCheckpoint(repair.checkpoint, transcript.length, caps)).toMatchObject({ ok: true });
        expect(JSON.stringify(repairCoverage(checkpoint, transcript, redactSecrets, caps).checkpoint)).toBe(
          JSON.stringify(repair.checkpoint),
        );
      }),
      { numRuns: 150 },
    );
  });
});
