import { chartLegend, contextChart } from './context-chart.js';
import { formatCost, formatCount, formatDuration, outcomeCounts, shortHash, stopLabel, totalsLine } from './format.js';
import { escapeHtml } from './html-escape.js';
import type { InspectReport, RunReport, ToolCallRow } from './report.js';
import type { SessionOverview } from './session-view.js';
import { budgetColumns, summaryFields, type SummaryField } from './run-fields.js';

/** Budget tables in the page list at most this many steps; the chart and `--json` cover all. */
export const MAX_HTML_STEP_ROWS = 5000;

/*
 * The page loads nothing: no script, no font, no image. The policy below makes a browser refuse
 * any request the markup might still cause, so a trace string that slipped past escaping could
 * not reach the network either.
 */
const CONTENT_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

const STYLE = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d1d1f; margin: 24px auto; max-width: 1000px; padding: 0 16px; }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 32px 0 8px; border-top: 1px solid #ddd; padding-top: 16px; }
h3 { font-size: 14px; margin: 20px 0 6px; }
.muted { color: #666; }
dl.summary { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0; }
dl.summary dt { color: #666; }
dl.summary dd { margin: 0; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; overflow-wrap: anywhere; }
table { border-collapse: collapse; font-size: 13px; margin: 4px 0; }
th, td { padding: 3px 10px; border-bottom: 1px solid #eee; text-align: left; white-space: nowrap; }
td.wrap { white-space: normal; }
th { color: #555; font-weight: 600; }
td.number, th.number { text-align: right; font-variant-numeric: tabular-nums; }
.status-completed { color: #1b7f2a; } .status-failed { color: #c62828; } .status-other { color: #b26a00; }
.bad { color: #c62828; }
.legend { display: flex; flex-wrap: wrap; gap: 14px; margin: 6px 0 0; font-size: 12px; color: #333; }
.legend span::before { content: ""; display: inline-block; width: 11px; height: 11px; margin-right: 5px; vertical-align: -1px; background: var(--colour); }
.legend span.point::before { border-radius: 50%; width: 8px; height: 8px; }
.legend span.marker::before { width: 3px; }
svg.context-chart { max-width: 100%; height: auto; display: block; }
.problems li { margin: 2px 0; }
`;

function cell(value: string, className?: string): string {
  return `<td${className === undefined ? '' : ` class="${className}"`}>${escapeHtml(value)}</td>`;
}

function table(
  headers: readonly (readonly [text: string, numeric: boolean])[],
  rows: readonly string[],
  className: string,
): string {
  const head = headers
    .map(([text, numeric]) => `<th${numeric ? ' class="number"' : ''}>${escapeHtml(text)}</th>`)
    .join('');
  return `<table class="${className}"><thead><tr>${head}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function statusClass(status: string): string {
  return status === 'completed' ? 'status-completed' : status === 'failed' ? 'status-failed' : 'status-other';
}

function summary(run: RunReport): string {
  const className = (field: SummaryField): string | undefined =>
    field.tone === 'status' ? statusClass(field.value) : field.tone === undefined ? undefined : 'bad';
  const items = summaryFields(run, { estimateError: true }).map((field) => {
    const tone = className(field);
    return `<dt>${escapeHtml(field.label)}</dt><dd${tone === undefined ? '' : ` class="${tone}"`}>${escapeHtml(field.value)}</dd>`;
  });
  return `<dl class="summary">${items.join('')}</dl>`;
}

function legend(run: RunReport): string {
  const entries = chartLegend(run).map(
    (entry) => `<span class="${entry.kind}" style="--colour: ${entry.colour}">${escapeHtml(entry.label)}</span>`,
  );
  return `<div class="legend">${entries.join('')}</div>`;
}

function budgetTable(run: RunReport): string {
  if (run.budget.length === 0) return '<p class="muted">No model steps.</p>';
  const columns = budgetColumns(run);
  const rows = run.budget.slice(0, MAX_HTML_STEP_ROWS).map((row) => {
    const cells = columns.map((column) =>
      cell(
        column.text(row),
        column.numeric ? 'number' : column.kind === 'note' && row.failed !== undefined ? 'bad' : undefined,
      ),
    );
    return `<tr data-step="${row.step}">${cells.join('')}</tr>`;
  });
  const headers = columns.map((column): [string, boolean] => [column.header, column.numeric]);
  const omitted = run.budget.length - MAX_HTML_STEP_ROWS;
  const note =
    omitted > 0
      ? `<p class="muted">${formatCount(omitted)} more steps are in the chart and in <code>forge inspect --json</code>.</p>`
      : '';
  return table(headers, rows, 'budget-table') + note;
}

function compactionsTable(run: RunReport): string {
  if (run.compactions.length === 0) return '<p class="muted">None.</p>';
  const rows = run.compactions.map(
    (compaction) =>
      `<tr>${[
        cell(String(compaction.beforeStep), 'number'),
        cell(compaction.outcome, compaction.outcome === 'failed' ? 'bad' : undefined),
        cell(compaction.strategy ?? '—'),
        cell(formatCount(compaction.reclaimedTokens), 'number'),
        cell(
          compaction.tokensBefore === undefined && compaction.tokensAfter === undefined
            ? '—'
            : `${formatCount(compaction.tokensBefore)} → ${formatCount(compaction.tokensAfter)}`,
          'number',
        ),
        cell(formatCount(compaction.keptVerbatimTokens), 'number'),
        `<td title="${escapeHtml(compaction.checkpointHash ?? '')}">${escapeHtml(shortHash(compaction.checkpointHash))}</td>`,
        cell([compaction.coverage, compaction.reason].filter((text) => text !== undefined).join('; '), 'wrap'),
      ].join('')}</tr>`,
  );
  const headers: [string, boolean][] = [
    ['before step', true],
    ['outcome', false],
    ['strategy', false],
    ['reclaimed', true],
    ['tokens', true],
    ['kept verbatim', true],
    ['checkpoint', false],
    ['reason', false],
  ];
  const more =
    run.compactionsNotListed > 0
      ? `<p class="muted">${formatCount(run.compactionsNotListed)} more are not listed.</p>`
      : '';
  const inHand = run.compactions
    .filter((compaction) => compaction.filesInHand !== undefined)
    .map(
      (compaction) =>
        `<p class="files-in-hand">Files in hand after the compaction before step ${compaction.beforeStep}: ${
          compaction.filesInHand?.length === 0
            ? 'none'
            : (compaction.filesInHand ?? []).map((path) => `<code>${escapeHtml(path)}</code>`).join(', ')
        }</p>`,
    );
  return table(headers, rows, 'compactions-table') + more + inHand.join('');
}

function stopsTable(run: RunReport): string {
  if (run.stops.length === 0) return '<p class="muted">None.</p>';
  const rows = run.stops.map(
    (stop) =>
      `<tr>${[cell(stop.step === undefined ? '—' : String(stop.step), 'number'), cell(stopLabel(stop.kind)), cell(stop.reason, 'wrap')].join('')}</tr>`,
  );
  const more =
    run.stopsNotListed > 0 ? `<p class="muted">${formatCount(run.stopsNotListed)} more are not listed.</p>` : '';
  return (
    table(
      [
        ['step', true],
        ['kind', false],
        ['reason', false],
      ],
      rows,
      'stops-table',
    ) + more
  );
}

function callTable(calls: readonly ToolCallRow[], className: string): string {
  const rows = calls.map(
    (call) =>
      `<tr>${[cell(String(call.step), 'number'), cell(call.toolName), cell(call.outcome, call.outcome === 'ok' ? undefined : 'bad'), cell(formatDuration(call.durationMs), 'number'), cell(call.toolCallId)].join('')}</tr>`,
  );
  return table(
    [
      ['step', true],
      ['tool', false],
      ['outcome', false],
      ['time', true],
      ['call id', false],
    ],
    rows,
    className,
  );
}

function toolsSection(run: RunReport): string {
  const { toolCalls } = run;
  if (toolCalls.total === 0 && toolCalls.notOk.length === 0) return '<p class="muted">None.</p>';
  const totals = toolCalls.byTool.map(
    (tool) =>
      `<tr>${[cell(tool.toolName), cell(formatCount(tool.calls), 'number'), cell(outcomeCounts(tool.outcomes)), cell(formatDuration(tool.totalDurationMs), 'number'), cell(formatDuration(tool.maxDurationMs), 'number')].join('')}</tr>`,
  );
  const parts = [
    table(
      [
        ['tool', false],
        ['calls', true],
        ['outcomes', false],
        ['total time', true],
        ['slowest', true],
      ],
      totals,
      'tools-table',
    ),
  ];
  if (toolCalls.slowest.length > 0) parts.push('<h3>Slowest calls</h3>', callTable(toolCalls.slowest, 'slowest-table'));
  if (toolCalls.notOk.length > 0)
    parts.push(
      `<h3>Calls that did not end ok (${String(toolCalls.notOkTotal)})</h3>`,
      callTable(toolCalls.notOk, 'not-ok-table'),
    );
  return parts.join('');
}

function runSection(run: RunReport): string {
  if (run.kind === 'compaction') {
    return [
      `<section class="run compaction" data-run-id="${escapeHtml(run.runId)}">`,
      `<h2>Compaction ${escapeHtml(run.runId)} <span class="muted">forge compact or /compact${run.sessionId === undefined ? '' : `, session ${escapeHtml(run.sessionId)}`}</span></h2>`,
      compactionsTable(run),
      '</section>',
    ].join('\n');
  }
  return [
    `<section class="run" data-run-id="${escapeHtml(run.runId)}">`,
    `<h2>Run ${escapeHtml(run.runId)}${run.sessionId === undefined ? '' : ` <span class="muted">session ${escapeHtml(run.sessionId)}</span>`}</h2>`,
    summary(run),
    '<h3>Context use per step</h3>',
    '<p class="muted">Bars: estimated input tokens by budget category (or the provider-reported input where no estimate was made). Dots: input the provider reported. Dashed red lines: compactions. Triangles: stops at a limit.</p>',
    contextChart(run),
    legend(run),
    '<h3>Budget per step</h3>',
    budgetTable(run),
    `<h3>Compactions (${formatCount(run.compactions.length + run.compactionsNotListed)})</h3>`,
    compactionsTable(run),
    '<h3>Limit and guard stops</h3>',
    stopsTable(run),
    `<h3>Tool calls (${formatCount(run.toolCalls.total)})</h3>`,
    toolsSection(run),
    '</section>',
  ].join('\n');
}

/** A session's runs, newest first, one row each; a click-free page, so older runs are counted, not listed. */
function runListTable(overview: SessionOverview): string {
  const rows = overview.listed.map(
    (run) =>
      `<tr data-run-id="${escapeHtml(run.runId)}">${[
        cell(run.runId),
        cell(run.startedAt ?? '—'),
        cell(run.kind === 'compaction' ? 'compaction' : run.status, statusClass(run.status)),
        cell(String(run.steps), 'number'),
        cell(formatCount(run.usage.inputTokens), 'number'),
        cell(formatCost(run.cost), 'number'),
      ].join('')}</tr>`,
  );
  const older =
    overview.notListed > 0
      ? `<p class="muted">${formatCount(overview.notListed)} older runs are not listed: <code>forge inspect --limit n --html FILE</code> lists more, <code>--run ID</code> shows one in full, <code>--json</code> has every run.</p>`
      : '';
  return (
    `<h2>Runs, newest first (${formatCount(overview.listed.length + overview.notListed)})</h2>` +
    table(
      [
        ['run', false],
        ['started', false],
        ['status', false],
        ['steps', true],
        ['input', true],
        ['cost', true],
      ],
      rows,
      'runs-table',
    ) +
    older
  );
}

/**
 * A self-contained HTML page of the report: inline CSS and SVG, no script, nothing fetched. A
 * session's page (with `overview`) lists its runs one row each and draws one run in full, so its
 * size does not grow with the number of runs.
 */
export function renderHtml(report: InspectReport, overview?: SessionOverview): string {
  const heading =
    report.target.kind === 'session'
      ? `Session ${report.target.sessionId ?? report.target.argument}`
      : report.runs.length === 1 && report.runs[0] !== undefined
        ? `Run ${report.runs[0].runId}`
        : `Trace ${report.target.argument}`;
  const problems =
    report.problems.length === 0
      ? ''
      : `<h2>Trace problems (${String(report.problems.length + report.problemsNotListed)})</h2><ul class="problems">${report.problems.map((problem) => `<li>${escapeHtml(problem.message)}</li>`).join('')}</ul>`;
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CONTENT_POLICY}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>forge inspect: ${escapeHtml(heading)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    `<h1>Forge run report: ${escapeHtml(heading)}</h1>`,
    `<p class="muted">forge inspect ${escapeHtml(report.target.argument)} · ${countsOf(report, overview)} · ${report.target.files.map((file) => escapeHtml(file)).join(', ')}</p>`,
    report.totals === undefined ? '' : `<p class="totals">Totals: ${escapeHtml(totalsLine(report.totals))}</p>`,
    (overview === undefined ? report.runs.length : overview.runs + overview.compactions) === 0
      ? '<p>No run events were found in the trace.</p>'
      : overview === undefined
        ? report.runs.map(runSection).join('\n')
        : [runListTable(overview), overview.detailed === undefined ? '' : runSection(overview.detailed)].join('\n'),
    problems,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** `2 runs, 1 manual compaction`: a compaction made with `forge compact` or `/compact` is no run. */
function countsOf(report: InspectReport, overview: SessionOverview | undefined): string {
  const runs = overview?.runs ?? report.runs.filter((run) => run.kind !== 'compaction').length;
  const compactions = overview?.compactions ?? report.runs.length - runs;
  const parts = [`${runs} run${runs === 1 ? '' : 's'}`];
  if (compactions > 0) parts.push(`${compactions} manual compaction${compactions === 1 ? '' : 's'}`);
  return parts.join(', ');
}
