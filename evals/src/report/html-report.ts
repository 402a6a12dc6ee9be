import type { FixtureModeMetrics } from '../metrics/metrics.js';
import type { EvalReport } from '../run/run-eval.js';
import {
  agentLines,
  priceSheetLine,
  agentsLabel,
  formatCount,
  gateStatusLabel,
  modeColumns,
  modeSummaries,
  rereadLines,
  resultColumns,
  runLabel,
  severalAgents,
  workingSetLines,
  type ModeSummary,
} from './format.js';

/*
 * A self-contained HTML page: inline CSS and SVG only, no script and no request at view time, so
 * it opens from disk anywhere. Every text from the report is escaped.
 */

const PALETTE = [
  '#6b7280',
  '#a16207',
  '#7c3aed',
  '#15803d',
  '#0e7490',
  '#be185d',
  '#dc2626',
  '#2563eb',
  '#111827',
  '#ca8a04',
];

function escape(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function colorOf(report: EvalReport, mode: string): string {
  const index = report.modes.findIndex((candidate) => candidate.id === mode);
  return PALETTE[(index < 0 ? 0 : index) % PALETTE.length] as string;
}

function htmlTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const head = headers.map((header) => `<th>${escape(header)}</th>`).join('');
  const body = rows
    .map(
      (row) =>
        `<tr>${row.map((value, index) => `<td${index >= 2 ? ' class="n"' : ''}>${escape(value)}</td>`).join('')}</tr>`,
    )
    .join('\n');
  return `<table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

const WIDTH = 720;
const HEIGHT = 220;
const MARGIN = { left: 64, right: 16, top: 16, bottom: 28 };

/** Input tokens per turn, one line per mode, dots where a compaction was installed. */
function tokensChart(report: EvalReport, fixture: string, results: readonly FixtureModeMetrics[]): string {
  const turns = Math.max(1, ...results.map((result) => result.tokensPerTurn.length));
  const peak = Math.max(1, ...results.flatMap((result) => result.tokensPerTurn));
  const x = (turn: number) =>
    MARGIN.left + (turns <= 1 ? 0 : (turn / (turns - 1)) * (WIDTH - MARGIN.left - MARGIN.right));
  const y = (tokens: number) => HEIGHT - MARGIN.bottom - (tokens / peak) * (HEIGHT - MARGIN.top - MARGIN.bottom);
  const parts: string[] = [];
  for (const fraction of [0, 0.5, 1]) {
    const value = peak * fraction;
    parts.push(
      `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(value).toFixed(1)}" y2="${y(value).toFixed(1)}" class="grid"/>`,
    );
    parts.push(
      `<text x="${MARGIN.left - 6}" y="${(y(value) + 4).toFixed(1)}" class="axis" text-anchor="end">${escape(formatCount(value))}</text>`,
    );
  }
  parts.push(`<text x="${WIDTH - MARGIN.right}" y="${HEIGHT - 6}" class="axis" text-anchor="end">turn ${turns}</text>`);
  parts.push(`<text x="${MARGIN.left}" y="${HEIGHT - 6}" class="axis">turn 1</text>`);
  for (const result of results) {
    const color = colorOf(report, result.mode);
    const points = result.tokensPerTurn
      .map((tokens, turn) => `${x(turn).toFixed(1)},${y(tokens).toFixed(1)}`)
      .join(' ');
    parts.push(
      `<polyline points="${points}" fill="none" stroke="${color}" stroke-width="1.5"><title>${escape(result.mode)}</title></polyline>`,
    );
    for (const turn of result.compactionTurns) {
      parts.push(
        `<circle cx="${x(turn).toFixed(1)}" cy="${y(result.tokensPerTurn[turn] ?? 0).toFixed(1)}" r="3" fill="${color}"><title>${escape(`${result.mode}: compaction before turn ${turn + 1}`)}</title></circle>`,
      );
    }
  }
  return `<figure><figcaption>${escape(fixture)}: estimated input tokens per turn (dots: compactions)</figcaption><svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${escape(`input tokens per turn, ${fixture}`)}">${parts.join('')}</svg></figure>`;
}

/** Horizontal bars, one per mode, for a share between 0 and 1. */
function barChart(
  report: EvalReport,
  title: string,
  summaries: readonly ModeSummary[],
  value: (summary: ModeSummary) => number | null,
): string {
  const rowHeight = 22;
  const height = summaries.length * rowHeight + 8;
  const left = 190;
  const span = WIDTH - left - 70;
  const rows = summaries.map((summary, index) => {
    const share = value(summary);
    const top = index * rowHeight + 4;
    const name = severalAgents(report) ? `${summary.mode} · ${summary.agent}` : summary.mode;
    const label = `<text x="${left - 8}" y="${top + 14}" class="axis" text-anchor="end">${escape(name)}</text>`;
    if (share === null) return `${label}<text x="${left}" y="${top + 14}" class="axis">–</text>`;
    const width = Math.max(0, Math.min(1, share)) * span;
    return `${label}<rect x="${left}" y="${top}" width="${width.toFixed(1)}" height="${rowHeight - 6}" fill="${colorOf(report, summary.mode)}"/><text x="${(left + width + 6).toFixed(1)}" y="${top + 14}" class="axis">${(share * 100).toFixed(1)} %</text>`;
  });
  return `<figure><figcaption>${escape(title)}</figcaption><svg viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${escape(title)}">${rows.join('')}</svg></figure>`;
}

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1200px;color:#111;padding:0 16px}
table{border-collapse:collapse;margin:8px 0 24px;font-size:12px}th,td{border-bottom:1px solid #ddd;padding:3px 8px;text-align:left;white-space:nowrap}
td.n{text-align:right;font-variant-numeric:tabular-nums}figure{margin:12px 0 20px}figcaption{font-weight:600;margin-bottom:4px}
svg{width:100%;max-width:${WIDTH}px;height:auto;background:#fafafa;border:1px solid #eee}.grid{stroke:#e5e7eb}.axis{font-size:11px;fill:#444}
.legend span{display:inline-block;margin-right:14px}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:middle}
.fail{color:#b91c1c;font-weight:600}.pass{color:#15803d}.skip{color:#a16207}.scroll{overflow-x:auto}`;

/** The report as one HTML page with charts of tokens per turn, reduction and recall per mode. */
export function renderHtmlReport(report: EvalReport): string {
  const summaries = modeSummaries(report);
  const legend = report.modes
    .filter((mode) => mode.unavailable === null)
    .map((mode) => `<span><i style="background:${colorOf(report, mode.id)}"></i>${escape(mode.id)}</span>`)
    .join('');
  const several = severalAgents(report);
  const charts = report.agents
    .flatMap((agent) =>
      report.fixtures.map((fixture) =>
        tokensChart(
          report,
          several ? `${fixture.id} (${agent})` : fixture.id,
          report.results.filter((result) => result.fixture === fixture.id && result.agent === agent),
        ),
      ),
    )
    .join('\n');
  const gates = report.gates
    .map((gate) => {
      const { label, tone } = gateStatusLabel(gate);
      const status = `<span class="${tone}">${label}${label === 'WARN' ? ' (advisory)' : ''}</span>`;
      return `<tr><td>${escape(gate.gate)}</td><td>${escape(gate.mode)}</td><td>${escape(gate.agent)}</td><td>${status}</td><td>${escape(gate.actual)}</td><td>${escape(gate.threshold)}</td><td>${escape(gate.detail)}</td></tr>`;
    })
    .join('\n');
  const failures = report.results
    .filter((result) => !result.passed || result.safetyFailures.length > 0)
    .flatMap((result) =>
      [...result.failures, ...result.safetyFailures.map((failure) => `safety: ${failure}`)].map(
        (reason) => `<li>${escape(`${runLabel(result, several)}: ${reason}`)}</li>`,
      ),
    )
    .join('\n');
  const modes = modeColumns(report);
  const results = resultColumns(report);
  const rereads = rereadLines(report);
  const workingSet = workingSetLines(report);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escape(`forge eval — ${report.source}`)}</title><style>${STYLE}</style></head>
<body>
<h1>${escape(`forge eval — ${report.source}`)}</h1>
<p>${escape(`Model ${report.model}, ${agentsLabel(report)}; started ${report.startedAt}; ${report.fixtures.length} fixtures; ${(report.durationMs / 1000).toFixed(1)} s.`)}</p>
<ul>${agentLines(report)
    .map((line) => `<li>${escape(line)}</li>`)
    .join('')}</ul>
<p>${escape(`${priceSheetLine(report)}. Costs are the simulated provider's usage, prompt cache included, at these prices.`)}</p>
<h2>Summary per mode</h2>
<div class="scroll">${htmlTable(
    modes.map((column) => column.title),
    summaries.map((summary) => modes.map((column) => column.value(summary))),
  )}</div>
${barChart(report, 'Input-token reduction against sending the whole transcript (median over long fixtures)', summaries, (summary) => summary.medianLongReduction)}
${barChart(report, 'Recall of seeded constraints', summaries, (summary) => (summary.recallTotal === 0 ? null : summary.recallCorrect / summary.recallTotal))}
${barChart(report, 'Fixtures passed', summaries, (summary) => (summary.fixtures === 0 ? null : summary.passed / summary.fixtures))}
<h2>Gates</h2>
<div class="scroll"><table><thead><tr><th>gate</th><th>mode</th><th>agent</th><th>result</th><th>measured</th><th>needs</th><th>detail</th></tr></thead><tbody>
${gates}
</tbody></table></div>
<h2>Input tokens per turn</h2>
<p class="legend">${legend}</p>
${charts}
<h2>Fixture × mode</h2>
<div class="scroll">${htmlTable(
    results.map((column) => column.title),
    report.results.map((result) => results.map((column) => column.value(result))),
  )}</div>
${rereads.length === 0 ? '' : `<h2>Re-reads of unchanged files, and why</h2><ul>\n${rereads.map((line) => `<li>${escape(line)}</li>`).join('\n')}\n</ul>`}
${workingSet.length === 0 ? '' : `<h2>Working-set re-reads, and what their steps cost</h2><ul>\n${workingSet.map((line) => `<li>${escape(line)}</li>`).join('\n')}\n</ul>`}
${failures.length === 0 ? '' : `<h2>Why runs failed</h2><ul>\n${failures}\n</ul>`}
</body></html>
`;
}
