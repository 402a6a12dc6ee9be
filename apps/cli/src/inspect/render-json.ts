import type { InspectReport } from './report.js';

const ROWS_PER_PIECE = 2000;

/**
 * The report as one JSON document, in pieces small enough to write without building the whole
 * text at once (a 100 MB trace can have tens of thousands of step rows). Joined, the pieces are
 * valid JSON equal in content to `JSON.stringify(report)`; `budget` comes last in each run.
 */
export function* jsonPieces(report: InspectReport): Generator<string> {
  const { runs, ...head } = report;
  yield `${JSON.stringify(head).slice(0, -1)},"runs":[`;
  for (const [index, run] of runs.entries()) {
    const { budget, ...fields } = run;
    yield `${index === 0 ? '' : ','}${JSON.stringify(fields).slice(0, -1)},"budget":[`;
    for (let start = 0; start < budget.length; start += ROWS_PER_PIECE) {
      const rows = budget.slice(start, start + ROWS_PER_PIECE).map((row) => JSON.stringify(row));
      yield `${start === 0 ? '' : ','}${rows.join(',')}`;
    }
    yield ']}';
  }
  yield ']}\n';
}
