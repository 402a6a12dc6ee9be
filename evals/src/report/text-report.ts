import { blockingFailures, type GateResult } from '../gates/gates.js';
import type { EvalReport } from '../run/run-eval.js';
import {
  NO_PAINT,
  agentLines,
  priceSheetLine,
  agentsLabel,
  compactionsByFill,
  failedRuns,
  gateStatusLabel,
  modeColumns,
  modeSummaries,
  nameColumns,
  rereadLines,
  resultColumns,
  workingSetLines,
  runLabel,
  severalAgents,
  type Paint,
  wrapperRows,
} from './format.js';

/** The colour of each gate tone in the terminal. */
const TONE_COLOURS = { pass: 'green', fail: 'red', skip: 'yellow' } as const satisfies Record<
  ReturnType<typeof gateStatusLabel>['tone'],
  keyof Paint
>;

/** `text` in lines of at most `width` characters, broken at spaces; lines after the first indented by `indent`. */
function wrap(text: string, width: number, indent: number): string[] {
  if (!Number.isFinite(width) || text.length <= width) return [text];
  const lines: string[] = [];
  let current = '';
  for (const word of text.split(' ')) {
    const room = width - (lines.length === 0 ? 0 : indent);
    if (current !== '' && current.length + 1 + word.length > room) {
      lines.push(current);
      current = word;
    } else current = current === '' ? word : `${current} ${word}`;
  }
  if (current !== '') lines.push(current);
  return lines.map((line, index) => (index === 0 ? line : `${' '.repeat(indent)}${line}`));
}

/**
 * Rows under aligned headers, the first `names` columns left-aligned; when that is wider than
 * `columns`, each row becomes a block instead: its name cells as a heading, then `header value`
 * pairs packed into lines that fit.
 */
function table(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  paint: Paint,
  columns = Number.POSITIVE_INFINITY,
  names = 2,
): string[] {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column < names ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  const full = widths.reduce((sum, width) => sum + width, 0) + 2 * (widths.length - 1);
  if (full <= columns) return [paint.bold(line(headers)), ...rows.map(line)];
  return rows.flatMap((row) => {
    const lines = [paint.bold(row.slice(0, names).join('  ').trimEnd())];
    let current = '';
    for (const [index, header] of headers.entries()) {
      if (index < names) continue;
      const pair = `${header} ${row[index] ?? ''}`;
      if (current !== '' && 2 + current.length + 3 + pair.length > columns) {
        lines.push(`  ${current}`);
        current = '';
      }
      current = current === '' ? pair : `${current} · ${pair}`;
    }
    if (current !== '') lines.push(`  ${current}`);
    return lines;
  });
}

/**
 * The terminal report: per-mode summary, fixture × mode table, gates and the reasons runs failed.
 * With `columns` (the terminal's width), a table too wide for it is laid out one row per block.
 */
export function renderTextReport(
  report: EvalReport,
  paint: Paint = NO_PAINT,
  options: { readonly details?: boolean; readonly columns?: number } = {},
): string {
  const layout: TextLayout = {
    report,
    paint,
    columns: options.columns ?? Number.POSITIVE_INFINITY,
    details: options.details !== false,
  };
  const lines = [
    ...headerLines(layout),
    ...modeSummaryLines(layout),
    ...(layout.details ? detailLines(layout) : []),
    ...compactionLines(layout),
    ...(layout.details ? wrapperLines(layout) : []),
    ...unavailableLines(layout),
    ...gateLines(layout),
    ...errorLines(layout),
    ...(layout.details ? failureLines(layout) : []),
    '',
    ...verdictLines(layout),
  ];
  return `${lines.join('\n')}\n`;
}

interface TextLayout {
  readonly report: EvalReport;
  readonly paint: Paint;
  readonly columns: number;
  readonly details: boolean;
}

function headerLines({ report, paint, columns }: TextLayout): string[] {
  const ran = report.modes.filter((mode) => mode.unavailable === null);
  const times = severalAgents(report) ? ` × ${report.agents.length} agents` : '';
  return [
    paint.bold(
      `forge eval — ${report.source}, model ${report.model}, ${agentsLabel(report)}: ${report.fixtures.length} fixtures × ${ran.length} modes${times} in ${(report.durationMs / 1000).toFixed(1)} s`,
    ),
    ...agentLines(report).flatMap((line) => wrap(line, columns - 2, 4).map((piece) => paint.dim(`  ${piece}`))),
    ...wrap(priceSheetLine(report), columns - 2, 4).map((piece) => paint.dim(`  ${piece}`)),
    '',
  ];
}

function modeSummaryLines({ report, paint, columns }: TextLayout): string[] {
  const summaries = modeSummaries(report);
  const modes = modeColumns(report);
  return [
    ...table(
      modes.map((column) => column.title),
      summaries.map((summary) => modes.map((column) => column.value(summary))),
      paint,
      columns,
      nameColumns(report, 'modes'),
    ),
    '',
  ];
}

function detailLines({ report, paint, columns }: TextLayout): string[] {
  const results = resultColumns(report);
  const lines = [
    ...table(
      results.map((column) => column.title),
      report.results.map((result) => results.map((column) => column.value(result))),
      paint,
      columns,
      nameColumns(report, 'results'),
    ),
    '',
  ];
  const rereads = rereadLines(report);
  if (rereads.length > 0)
    lines.push(paint.bold('Re-reads of unchanged files, and why'), ...rereads.map((line) => `  ${line}`), '');
  const workingSet = workingSetLines(report);
  if (workingSet.length > 0)
    lines.push(
      paint.bold('Working-set re-reads (text seen before, needed again) and their cost'),
      ...workingSet.map((line) => `  ${line}`),
      '',
    );
  return lines;
}

function compactionLines({ report, paint, columns }: TextLayout): string[] {
  const byFill = compactionsByFill(report);
  if (byFill.rows.length === 0) return [];
  return [
    paint.bold('Compactions per fixture, by window fill'),
    '(fill: peak whole history ÷ available input; shadow builds in parentheses)',
    ...table(byFill.headers, byFill.rows, paint, columns),
    '',
  ];
}

function wrapperLines({ report, paint, columns }: TextLayout): string[] {
  const wrappers = wrapperRows(report);
  if (wrappers.length === 0) return [];
  return [
    paint.bold('Codex wrapper (tokens of the text Forge would send the Codex engine)'),
    ...table(['fixture', 'mode', 'largest', 'median', 'constraint mismatches'], wrappers, paint, columns),
    '',
  ];
}

function unavailableModes(report: EvalReport): EvalReport['modes'] {
  return report.modes.filter((mode) => mode.unavailable !== null);
}

function unavailableLines({ report, paint }: TextLayout): string[] {
  const unavailable = unavailableModes(report);
  const lines = unavailable.map((mode) => paint.dim(`not run: ${mode.id} — ${mode.unavailable ?? ''}`));
  if (unavailable.length > 0) lines.push('');
  return lines;
}

function gateLines({ report, paint }: TextLayout): string[] {
  const unavailable = unavailableModes(report);
  const lines = [paint.bold('Gates')];
  const unrun = new Set(unavailable.map((mode) => mode.id));
  for (const mode of unavailable)
    lines.push(`  ${paint.yellow('not evaluated')}  every gate of ${mode.id}: the mode did not run`);
  for (const gate of report.gates.filter((candidate) => !unrun.has(candidate.mode))) {
    const status = gateStatusLabel(gate);
    const mark = paint[TONE_COLOURS[status.tone]](status.label);
    const measured = gate.status === 'not-evaluated' ? '' : ` ${gate.actual} (needs ${gate.threshold})`;
    const detail = gate.detail.length === 0 ? '' : paint.dim(` — ${gate.detail}`);
    lines.push(
      `  ${mark}  ${gate.gate} [${gateSubject(report, gate)}]${gate.advisory === true ? ' (advisory)' : ''}${measured}${detail}`,
    );
  }
  return lines;
}

function errorLines({ report, paint }: TextLayout): string[] {
  return report.errors.map((error) => paint.red(`error: ${runLabel(error, severalAgents(report))}: ${error.message}`));
}

function failureLines({ report, paint }: TextLayout): string[] {
  const failed = failedRuns(report);
  if (failed.length === 0) return [];
  return [
    '',
    paint.bold('Why runs failed'),
    ...failed.map(
      ({ result, reasons }) =>
        `  ${runLabel(result, severalAgents(report))}: ${reasons.slice(0, 3).join('; ')}${reasons.length > 3 ? `; and ${reasons.length - 3} more` : ''}`,
    ),
  ];
}

function verdictLines({ report, paint }: TextLayout): string[] {
  const failedGates = blockingFailures(report.gates);
  const named = (gates: readonly GateResult[]) =>
    gates.map((gate) => `${gate.gate} [${gateSubject(report, gate)}]`).join(', ');
  if (failedGates.length > 0) return [paint.red(`${failedGates.length} gate(s) failed: ${named(failedGates)}`)];
  const warned = report.gates.filter((gate) => gate.status === 'fail' && gate.advisory === true);
  const skipped = report.gates.filter((gate) => gate.status === 'not-evaluated').length;
  const lines = [paint.green(`All evaluated gates passed${skipped > 0 ? `; ${skipped} not evaluated` : ''}.`)];
  if (warned.length > 0)
    lines.push(
      paint.yellow(`${warned.length} advisory gate(s) failed (not release gates; see docs/evals.md): ${named(warned)}`),
    );
  return lines;
}

/** `compact:forge-state`, or `compact:forge-state, no-notes` when several agents played. */
export function gateSubject(report: EvalReport, gate: GateResult): string {
  return severalAgents(report) ? `${gate.mode}, ${gate.agent}` : gate.mode;
}
