import { describe, expect, it } from 'vitest';
import { sessionRecordSchema } from './records.js';

/*
 * Regression: a session record could carry any run id, and `forge inspect <session>` turns each
 * run id into a trace file name. A hand-edited or hostile session file with "../../x" as a run id
 * loaded without complaint (found by the reliability suite); such a record is now invalid, so the
 * line is reported as corrupt.
 */

const at = '2026-01-01T00:00:00.000Z';

describe('run ids in session records', () => {
  it.each(['../../outside', 'a/b', 'has space', '', 'x'.repeat(129)])('refuses %j', (runId) => {
    expect(sessionRecordSchema.safeParse({ v: 2, seq: 1, type: 'run.started', at, runId }).success).toBe(false);
    expect(
      sessionRecordSchema.safeParse({ v: 2, seq: 1, type: 'run.ended', at, runId, status: 'completed', usage: {} })
        .success,
    ).toBe(false);
    expect(
      sessionRecordSchema.safeParse({
        v: 2,
        seq: 1,
        type: 'message',
        at,
        index: 0,
        runId,
        message: { role: 'user', content: 'hi' },
      }).success,
    ).toBe(false);
  });

  it('accepts the ids Forge makes', () => {
    expect(
      sessionRecordSchema.safeParse({ v: 2, seq: 1, type: 'run.started', at, runId: 'run_mx3421x5_a273704156b5' })
        .success,
    ).toBe(true);
  });
});
