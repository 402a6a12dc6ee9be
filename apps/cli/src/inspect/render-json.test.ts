import { describe, expect, it } from 'vitest';
import { jsonPieces } from './render-json.js';
import { INSPECT_REPORT_VERSION, type InspectReport, type RunReport } from './report.js';

function run(runId: string, steps: number): RunReport {
  return {
    kind: 'run',
    runId,
    file: `/home/runs/${runId}.jsonl`,
    engine: 'native',
    status: 'completed',
    steps,
    advertisedTools: ['read_file'],
    usage: { inputTokens: 10 },
    unpricedSteps: steps,
    budget: Array.from({ length: steps }, (_, index) => ({
      step: index + 1,
      estimatedTokens: 100 + index,
      reportedInputTokens: 101 + index,
      warned: index % 7 === 0,
    })),
    warnings: 0,
    compactions: [],
    compactionsNotListed: 0,
    stops: [],
    stopsNotListed: 0,
    toolCalls: { total: 0, byTool: [], slowest: [], notOk: [], notOkTotal: 0 },
    unknownEvents: [],
    events: steps * 3,
  };
}

describe('jsonPieces', () => {
  it('joins to the same document as JSON.stringify, for runs with no, few and many steps', () => {
    const report: InspectReport = {
      inspectReportVersion: INSPECT_REPORT_VERSION,
      target: { kind: 'session', argument: 'session_x', sessionId: 'session_x', files: ['a', 'b', 'c'] },
      runs: [run('run_empty', 0), run('run_small', 3), run('run_large', 4500)],
      problems: [{ kind: 'torn_tail', file: 'c', line: 9, message: 'torn "quoted" \n line' }],
      problemsNotListed: 0,
    };
    const pieces = [...jsonPieces(report)];
    expect(pieces.length).toBeGreaterThan(5);
    const text = pieces.join('');
    expect(text.endsWith('}\n')).toBe(true);
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(report)));
  });

  it('writes an empty report', () => {
    const report: InspectReport = {
      inspectReportVersion: INSPECT_REPORT_VERSION,
      target: { kind: 'file', argument: 'x', files: ['x'] },
      runs: [],
      problems: [],
      problemsNotListed: 0,
    };
    expect(JSON.parse([...jsonPieces(report)].join(''))).toEqual(report);
  });
});
