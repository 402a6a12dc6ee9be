import { describe, expect, it } from 'vitest';
import { emptyStructuredSummary } from '../checkpoint/fixtures.test-helpers.js';
import {
  parseCompactorReply,
  structuredSummaryJsonSchema,
  structuredSummaryInconsistencies,
} from './compactor-model.js';

const summary = emptyStructuredSummary({ commandsAndResults: [{ command: 'pnpm test', result: 'all tests passed' }] });

describe('the compactor reply', () => {
  it('accepts exactly the schema, fenced or not', () => {
    expect(parseCompactorReply(JSON.stringify(summary))).toMatchObject({ ok: true });
    expect(parseCompactorReply(`\`\`\`json\n${JSON.stringify(summary)}\n\`\`\``)).toMatchObject({ ok: true });
    expect(parseCompactorReply(JSON.stringify({ ...summary, extra: 1 }))).toMatchObject({
      ok: false,
      reason: 'schema',
    });
    const { phase: _phase, ...missing } = summary;
    expect(parseCompactorReply(JSON.stringify(missing))).toMatchObject({
      ok: false,
      reason: 'schema',
      message: expect.stringContaining('phase'),
    });
    expect(parseCompactorReply('Sorry, I cannot do that.')).toMatchObject({ ok: false, reason: 'refused' });
  });

  it('is asked for with a strict JSON Schema', () => {
    expect(structuredSummaryJsonSchema).toMatchObject({ type: 'object', additionalProperties: false });
    expect(structuredSummaryJsonSchema['$schema']).toBeUndefined();
  });

  it('may not report as passing a command whose latest recorded run failed (invariant 3)', () => {
    const state = {
      task: null,
      artifacts: [],
      recentArtifacts: [],
      commands: [{ command: 'pnpm test', exitCode: 1, signal: null, timedOut: false, runId: 'run_1', seq: 3 }],
      changedFiles: [],
      failures: [],
    };
    expect(structuredSummaryInconsistencies(summary, state)).toEqual([
      'structured.commandsAndResults: "pnpm test" is reported as passing but its latest recorded run failed',
    ]);
    expect(
      structuredSummaryInconsistencies(
        { ...summary, commandsAndResults: [{ command: 'pnpm test', result: 'failed in run_1' }] },
        state,
      ),
    ).toEqual([]);
  });
});
