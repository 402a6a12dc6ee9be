import type { Style } from '../output/style.js';
import {
  costColumns,
  formatCost,
  formatCount,
  formatDuration,
  formatPercent,
  formatShare,
  outcomeCounts,
  shortHash,
  stopLabel,
  totalsLine,
} from './format.js';
import type { InspectReport, RunReport, StepBudget, ToolCallRow } from './report.js';
import { budgetColumns, summaryFields, type SummaryField } from './run-fields.js';
import type { SessionOverview } from './session-view.js';
import { formatTable, type TextCell } from './text-table.js';

/** Step tables longer than this show their first and last rows only. */
const FULL_STEP_TABLE = 60;
const SHOWN_AT_EACH_END = 20;
/** Compactions and stops listed in the terminal; `--json` has up to 1000 of each. */
const LISTED_IN_TEXT = 30;

function moreLine(more: number, style: Style): string[] {
  return more > 0 ? [style.dim(`  … ${formatCount(more)} more; --json lists more`)] : [];
}

function statusCell(status: string, style: Style): TextCell {
  const paint = status === 'completed' ? style.green : status === 'failed' ? style.red : style.yellow;
  return { text: status, paint };
}

function summary(run: RunReport, style: Style): string[] {
  const tone = (field: SummaryField): string =>
    field.tone === 'status'
      ? paintStatus(field.value, style)
      : field.tone === 'warning'
        ? style.yellow(field.value)
        : field.tone === 'error'
          ? style.red(field.value)
          : field.value;
  return [
    style.bold(`Run ${run.runId}`) + (run.sessionId === undefined ? '' : style.dim(`  (session ${run.sessionId})`)),
    ...summaryFields(run, { estimateError: false }).map(
      (field) => `  ${style.dim(field.label.padEnd(13))}${tone(field)}`,
    ),
  ];
}

function paintStatus(status: string, style: Style): string {
  const cell = statusCell(status, style);
  return typeof cell === 'string' ? cell : cell.paint(cell.text);
}

function budgetTable(run: RunReport, style: Style): string[] {
  if (run.budget.length === 0) return [style.bold('Budget per step'), '  no model steps'];
  const budgetColumnsOfRun = budgetColumns(run);
  const columns = budgetColumnsOfRun.map((column) => ({
    header: column.header,
    align: column.numeric ? ('right' as const) : ('left' as const),
  }));
  const row = (budget: StepBudget): TextCell[] =>
    budgetColumnsOfRun.map((column) =>
      column.kind === 'error'
        ? errorCell(budget.errorPercent, style)
        : column.kind === 'note'
          ? noteCell(column.text(budget), budget, style)
          : column.text(budget),
    );
  const shown =
    run.budget.length <= FULL_STEP_TABLE
      ? run.budget
      : [...run.budget.slice(0, SHOWN_AT_EACH_END), undefined, ...run.budget.slice(-SHOWN_AT_EACH_END)];
  const rows = shown.map((budget) =>
    budget === undefined ? [{ text: '…', paint: style.dim }, ...columns.slice(1).map(() => '')] : row(budget),
  );
  const lines = formatTable({ columns, rows, paintHeader: style.dim });
  if (shown.length !== run.budget.length) {
    const omitted = run.budget.length - 2 * SHOWN_AT_EACH_END;
    lines.push(style.dim(`  ${formatCount(omitted)} steps not shown; --json or --html FILE lists every step`));
  }
  const error =
    run.meanAbsoluteErrorPercent === undefined
      ? 'no step has both an estimate and provider-reported input'
      : `${run.meanAbsoluteErrorPercent.toFixed(1)}% mean absolute estimate error`;
  const parts = costColumns(run).written ? 'cached and written are parts of input' : 'cached is part of input';
  return [
    style.bold('Budget per step'),
    ...lines,
    style.dim(`  ${error}; estimate is Forge's count of the input, input the provider's; ${parts}`),
  ];
}

function errorCell(errorPercent: number | undefined, style: Style): TextCell {
  const text = formatPercent(errorPercent);
  if (errorPercent === undefined) return { text, paint: style.dim };
  return { text, paint: errorPercent < -10 ? style.red : errorPercent > 25 ? style.yellow : (padded) => padded };
}

function noteCell(text: string, budget: StepBudget, style: Style): TextCell {
  return { text, paint: budget.failed === undefined ? style.yellow : style.red };
}

function compactionsSection(run: RunReport, style: Style): string[] {
  if (run.compactions.length === 0) return [`${style.bold('Compactions')}  none`];
  const rows = run.compactions
    .slice(0, LISTED_IN_TEXT)
    .map((compaction): TextCell[] => [
      String(compaction.beforeStep),
      { text: compaction.outcome, paint: compaction.outcome === 'failed' ? style.red : (padded) => padded },
      compaction.strategy ?? '—',
      formatCount(compaction.reclaimedTokens),
      compaction.tokensBefore === undefined && compaction.tokensAfter === undefined
        ? '—'
        : `${formatCount(compaction.tokensBefore)} → ${formatCount(compaction.tokensAfter)}`,
      formatCount(compaction.keptVerbatimTokens),
      shortHash(compaction.checkpointHash),
      [compaction.coverage, compaction.reason].filter((text) => text !== undefined).join('; '),
    ]);
  const columns = [
    { header: 'before step', align: 'right' as const },
    { header: 'outcome' },
    { header: 'strategy' },
    { header: 'reclaimed', align: 'right' as const },
    { header: 'tokens', align: 'right' as const },
    { header: 'kept verbatim', align: 'right' as const },
    { header: 'checkpoint' },
    { header: 'reason' },
  ];
  const total = run.compactions.length + run.compactionsNotListed;
  return [
    style.bold(`Compactions (${formatCount(total)})`),
    ...formatTable({ columns, rows, paintHeader: style.dim }),
    ...moreLine(total - rows.length, style),
    ...filesInHandLines(run.compactions.slice(0, LISTED_IN_TEXT), style),
  ];
}

/** One line per listed compaction that kept files in hand: which ones, most recent first. */
function filesInHandLines(compactions: RunReport['compactions'], style: Style): string[] {
  return compactions.flatMap((compaction) =>
    compaction.filesInHand === undefined
      ? []
      : [
          `${style.dim(`files in hand after the compaction before step ${compaction.beforeStep}:`)} ${compaction.filesInHand.length === 0 ? 'none' : compaction.filesInHand.join(', ')}`,
        ],
  );
}

function stopsSection(run: RunReport, style: Style): string[] {
  if (run.stops.length === 0) return [`${style.bold('Limit and guard stops')}  none`];
  const rows = run.stops
    .slice(0, LISTED_IN_TEXT)
    .map((stop): TextCell[] => [
      stop.step === undefined ? '—' : String(stop.step),
      { text: stopLabel(stop.kind), paint: style.yellow },
      stop.reason,
    ]);
  const table = formatTable({
    columns: [{ header: 'step', align: 'right' }, { header: 'kind' }, { header: 'reason' }],
    rows,
    paintHeader: style.dim,
  });
  return [
    style.bold('Limit and guard stops'),
    ...table,
    ...moreLine(run.stops.length + run.stopsNotListed - rows.length, style),
  ];
}

function callRows(calls: readonly ToolCallRow[], style: Style): TextCell[][] {
  return calls.map((call) => [
    String(call.step),
    call.toolName,
    { text: call.outcome, paint: call.outcome === 'ok' ? (padded: string) => padded : style.red },
    formatDuration(call.durationMs),
    call.toolCallId,
  ]);
}

function toolsSection(run: RunReport, style: Style): string[] {
  const { toolCalls } = run;
  if (toolCalls.total === 0 && toolCalls.notOk.length === 0) return [`${style.bold('Tool calls')}  none`];
  const totals = toolCalls.byTool.map((tool): TextCell[] => [
    tool.toolName,
    formatCount(tool.calls),
    outcomeCounts(tool.outcomes),
    formatDuration(tool.totalDurationMs),
    formatDuration(tool.maxDurationMs),
  ]);
  const lines = [
    style.bold(`Tool calls (${formatCount(toolCalls.total)})`),
    ...formatTable({
      columns: [
        { header: 'tool' },
        { header: 'calls', align: 'right' },
        { header: 'outcomes' },
        { header: 'total time', align: 'right' },
        { header: 'slowest', align: 'right' },
      ],
      rows: totals,
      paintHeader: style.dim,
    }),
  ];
  const callColumns = [
    { header: 'step', align: 'right' as const },
    { header: 'tool' },
    { header: 'outcome' },
    { header: 'time', align: 'right' as const },
    { header: 'call id' },
  ];
  if (toolCalls.slowest.length > 0)
    lines.push(
      style.dim('  slowest'),
      ...formatTable({
        columns: callColumns,
        rows: callRows(toolCalls.slowest, style),
        indent: '    ',
        paintHeader: style.dim,
      }),
    );
  if (toolCalls.notOk.length > 0) {
    const more = toolCalls.notOkTotal - toolCalls.notOk.length;
    lines.push(
      style.dim(`  not ok (${String(toolCalls.notOkTotal)})`),
      ...formatTable({
        columns: callColumns,
        rows: callRows(toolCalls.notOk, style),
        indent: '    ',
        paintHeader: style.dim,
      }),
    );
    if (more > 0)
      lines.push(
        style.dim(`    … ${formatCount(more)} more; --json lists the first ${String(toolCalls.notOk.length)}`),
      );
  }
  return lines;
}

/** A compaction made with `forge compact` or `/compact`: where it is recorded and what it did. */
function compactionRunSection(run: RunReport, style: Style): string[] {
  const label = (text: string) => style.dim(text.padEnd(13));
  return [
    style.bold(`Compaction ${run.runId}`) +
      style.dim(`  (forge compact or /compact${run.sessionId === undefined ? '' : `, session ${run.sessionId}`})`),
    `  ${label('trace')}${run.file}`,
    `  ${label('started')}${run.startedAt ?? '—'}`,
    ...compactionsSection(run, style),
    '',
  ];
}

function runSection(run: RunReport, style: Style): string[] {
  if (run.kind === 'compaction') return compactionRunSection(run, style);
  const sections = [
    summary(run, style),
    budgetTable(run, style),
    compactionsSection(run, style),
    stopsSection(run, style),
    toolsSection(run, style),
  ];
  if (run.unknownEvents.length > 0) {
    sections.push([
      `${style.bold('Other events')}  ${run.unknownEvents.map((unknown) => `${unknown.type} ×${String(unknown.count)}`).join(', ')}`,
    ]);
  }
  return sections.flatMap((section) => [...section, '']);
}

/** One line per run of a session, newest first: when, how it ended, steps, input and cost. */
function runListSection(overview: SessionOverview, style: Style): string[] {
  const rows = overview.listed.map((run) => [
    run.runId,
    run.startedAt ?? '—',
    statusCell(run.kind === 'compaction' ? 'compaction' : run.status, style),
    String(run.steps),
    formatCount(run.usage.inputTokens),
    run.cacheHitRatio === undefined ? '—' : formatShare(run.cacheHitRatio),
    formatCost(run.cost),
  ]);
  return [
    style.bold(`Runs, newest first (${formatCount(overview.listed.length + overview.notListed)})`),
    ...formatTable({
      columns: [
        { header: 'run' },
        { header: 'started' },
        { header: 'status' },
        { header: 'steps', align: 'right' },
        { header: 'input', align: 'right' },
        { header: 'cached', align: 'right' },
        { header: 'cost', align: 'right' },
      ],
      rows,
      indent: '  ',
      paintHeader: style.dim,
    }),
    ...(overview.notListed > 0
      ? [
          style.dim(
            `  … ${formatCount(overview.notListed)} older runs; --limit <n> lists more, --json has every run in full`,
          ),
        ]
      : []),
  ];
}

/**
 * The terminal rendering of a report: a summary and aligned tables per run. A session's report
 * (with `overview`) lists its runs one line each and shows one run in full.
 */
export function renderText(report: InspectReport, style: Style, overview?: SessionOverview): string {
  const lines: string[] = [];
  if (report.target.kind === 'session') {
    const compactions = overview?.compactions ?? report.runs.filter((run) => run.kind === 'compaction').length;
    const runs = overview?.runs ?? report.runs.length - compactions;
    const manual = compactions === 0 ? '' : ` and ${String(compactions)} manual compaction(s)`;
    lines.push(
      style.bold(`Session ${report.target.sessionId ?? report.target.argument}`) +
        `: ${String(runs)} run(s)${manual} with traces`,
    );
    if (report.totals !== undefined) lines.push(`  ${style.dim('totals'.padEnd(13))}${totalsLine(report.totals)}`);
    lines.push('');
  } else if (report.totals !== undefined) {
    lines.push(`${style.bold(`${String(report.runs.length)} runs`)}: ${totalsLine(report.totals)}`, '');
  }
  if ((overview === undefined ? report.runs.length : overview.runs + overview.compactions) === 0)
    lines.push('No run events were found in the trace.', '');
  if (overview === undefined) for (const run of report.runs) lines.push(...runSection(run, style));
  else {
    lines.push(...runListSection(overview, style), '');
    if (overview.detailed !== undefined) lines.push(...runSection(overview.detailed, style));
  }
  if (report.problems.length > 0) {
    lines.push(style.yellow(`Trace problems (${String(report.problems.length + report.problemsNotListed)})`));
    for (const problem of report.problems) lines.push(`  ${problem.message}`);
    if (report.problemsNotListed > 0) lines.push(style.dim(`  … ${formatCount(report.problemsNotListed)} more`));
    lines.push('');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
