import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitIntoGroups } from '../view/groups.js';
import { findApprovalClaim, removeApprovalClaims, truncateWithoutClaims } from './authority-text.js';
import { buildForgeStateCheckpoint } from './build.js';
import { CHECKPOINT_CAPS, checkpointCapsSchema } from './caps.js';
import { redactSecrets } from './fixtures.test-helpers.js';
import type { CheckpointTranscriptEntry } from './host-metadata.js';
import { truncateText } from './text.js';
import { PLANTED_SECRET, capsArbitrary, checkpointTranscriptArbitrary } from './transcript-arbitrary.test-helpers.js';
import { validateCheckpoint } from './validate.js';
import { checkpointViewCharBound, renderCheckpointView } from './view.js';

/** A transcript and a tail start on one of its group boundaries. */
const sessionArbitrary = checkpointTranscriptArbitrary().chain((transcript) => {
  const starts = [
    ...splitIntoGroups(transcript.map((entry) => entry.message)).map((group) => group.start),
    transcript.length,
  ];
  return fc.constantFrom(...starts).map((tailStart) => ({ transcript, tailStart }));
});

function build(transcript: readonly CheckpointTranscriptEntry[], tailStart: number, caps = CHECKPOINT_CAPS) {
  return buildForgeStateCheckpoint({ transcript, tailStart, redact: redactSecrets, caps });
}

describe('checkpoint properties', () => {
  it('the random caps are valid caps', () => {
    fc.assert(fc.property(capsArbitrary, (caps) => checkpointCapsSchema.safeParse(caps).success));
  });

  it('builds a valid checkpoint from any session, the same bytes twice, with a view within the bound of its caps', () => {
    fc.assert(
      fc.property(
        sessionArbitrary,
        fc.oneof(fc.constant(CHECKPOINT_CAPS), capsArbitrary),
        ({ transcript, tailStart }, caps) => {
          const first = build(transcript, tailStart, caps);
          const second = build(structuredClone(transcript), tailStart, caps);
          expect(JSON.stringify(second)).toBe(JSON.stringify(first));
          const validation = validateCheckpoint(first, transcript.length, caps);
          expect(validation.ok ? [] : validation.errors).toEqual([]);
          const view = renderCheckpointView(first, caps);
          expect(renderCheckpointView(second, caps)).toBe(view);
          expect(view.length).toBeLessThanOrEqual(checkpointViewCharBound(caps));
        },
      ),
      { numRuns: 80 },
    );
  });

  it('never lets a planted secret or an approval-like claim reach the checkpoint or its view', () => {
    fc.assert(
      fc.property(sessionArbitrary, capsArbitrary, ({ transcript, tailStart }, caps) => {
        const checkpoint = build(transcript, tailStart, caps);
        const view = renderCheckpointView(checkpoint, caps);
        expect(JSON.stringify(checkpoint)).not.toContain(PLANTED_SECRET);
        expect(view).not.toContain(PLANTED_SECRET);
        expect(findApprovalClaim(view)).toBeNull();
      }),
      { numRuns: 80 },
    );
  });

  it('takes the task from the latest user message and from nowhere else', () => {
    fc.assert(
      fc.property(sessionArbitrary, ({ transcript, tailStart }) => {
        const { task } = build(transcript, tailStart).state;
        const lastUser = transcript.findLastIndex((entry) => entry.message.role === 'user');
        if (lastUser === -1) expect(task).toBeNull();
        else expect(task?.evidence).toEqual({ source: 'user', messageIndex: lastUser });
      }),
    );
  });

  it('cuts text to the limit, keeping a prefix, and leaves no approval claim behind', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.integer({ min: 0, max: 120 }), (value, max) => {
        const cut = truncateText(value, max);
        expect(cut.length).toBeLessThanOrEqual(max);
        if (value.length <= max) expect(cut).toBe(value);
        else if (max > 1) expect(value.startsWith(cut.slice(0, -1))).toBe(true);
      }),
    );
    const claimy = fc
      .array(
        fc.oneof(
          fc.string({ maxLength: 20 }),
          fc.constantFrom(
            'you are',
            'allowed',
            'granted',
            'I approve',
            'permission',
            'you have',
            'full access',
            '\n',
            '. ',
          ),
        ),
        { maxLength: 12 },
      )
      .map((parts) => parts.join(' '));
    fc.assert(
      fc.property(claimy, fc.integer({ min: 1, max: 80 }), (value, max) => {
        expect(findApprovalClaim(removeApprovalClaims(value))).toBeNull();
        const cut = truncateWithoutClaims(value, max);
        expect(cut.length).toBeLessThanOrEqual(max);
        expect(findApprovalClaim(cut)).toBeNull();
      }),
      { numRuns: 300 },
    );
  });
});
