import type { EvalReport } from '../run/run-eval.js';
import * as format from './format.js';

/** Text safe inside a table cell or list item: no raw HTML, no column breaks, one line. */
function cell(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\|/g, '\\|')
    .replace(/\n/g, ' ');
}

function markdownTable(headers: readonly string[], rows: readonly (readonly string[])[], names = 2): string[] {
  return [
    `| ${headers.map(cell).join(' | ')} |`,
    `|${headers.map((_, index) => (index < names ? ' --- ' : ' ---: ')).join('|')}|`,
    ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`),
  ];
}

function markdownStatus(label: ReturnType<typeof format.gateStatusLabel>['label']): string {
  if (label === 'FAIL') return '**FAIL**';
  return label === 'WARN' ? 'WARN (advisory)' : label;
}

/** The report as Markdown: what ran, the per-mode and per-fixture tables, the gates, why runs failed. */
export function renderMarkdownReport(report: EvalReport): string {
  const modes = format.modeColumns(report);
  const results = format.resultColumns(report);
  const several = format.severalAgents(report);
  const byFill = format.compactionsByFill(report);
  const lines: string[] = [
    `# forge eval — ${report.source}`,
    '',
    `Model: ${report.model}, ${format.agentsLabel(report)}. Started ${report.startedAt}; ${report.fixtures.length} fixtures, ${(report.durationMs / 1000).toFixed(1)} s.`,
    '',
    ...format.agentLines(report).map((line) => `- ${cell(line)}`),
    '',
    `${cell(format.priceSheetLine(report))}. Costs are the simulated provider's usage, prompt cache included, at these prices.`,
    '',
    '## Modes',
    '',
    ...markdownTable(
      ['mode', 'what it is', 'how it ran'],
      report.modes.map((mode) => [
        mode.id,
        mode.label,
        mode.unavailable === null ? mode.implementation : `not run: ${mode.unavailable}`,
      ]),
    ),
    '',
    '## Summary per mode',
    '',
    ...markdownTable(
      modes.map((column) => column.title),
      format.modeSummaries(report).map((summary) => modes.map((column) => column.value(summary))),
      format.nameColumns(report, 'modes'),
    ),
    '',
    '## Compactions per fixture, by window fill',
    '',
    'Fill is the peak of the whole history over the available input (at or below 1× it fits); shadow builds are in parentheses.',
    '',
    ...markdownTable(byFill.headers, byFill.rows),
    '',
    '## Gates',
    '',
    ...markdownTable(
      ['gate', 'mode', ...(several ? ['agent'] : []), 'result', 'measured', 'needs', 'detail'],
      report.gates.map((gate) => [
        gate.gate,
        gate.mode,
        ...(several ? [gate.agent] : []),
        markdownStatus(format.gateStatusLabel(gate).label),
        gate.actual,
        gate.threshold,
        gate.detail,
      ]),
      format.nameColumns(report, 'gates'),
    ),
    '',
    '## Fixture × mode',
    '',
    ...markdownTable(
      results.map((column) => column.title),
      report.results.map((result) => results.map((column) => column.value(result))),
      format.nameColumns(report, 'results'),
    ),
    '',
  ];
  const rereads = format.rereadLines(report);
  if (rereads.length > 0)
    lines.push('## Re-reads of unchanged files, and why', '', ...rereads.map((line) => `- ${cell(line)}`), '');
  const workingSet = format.workingSetLines(report);
  if (workingSet.length > 0)
    lines.push(
      '## Working-set re-reads, and what their steps cost',
      '',
      ...workingSet.map((line) => `- ${cell(line)}`),
      '',
    );
  const wrappers = format.wrapperRows(report);
  if (wrappers.length > 0)
    lines.push(
      '## Codex wrapper',
      '',
      ...markdownTable(['fixture', 'mode', 'largest wrapper', 'median wrapper', 'constraint mismatches'], wrappers),
      '',
    );
  const failed = format.failedRuns(report);
  if (failed.length > 0 || report.errors.length > 0) {
    lines.push('## Why runs failed', '');
    for (const { result, reasons } of failed) {
      const who = format.runLabel(result, several);
      for (const reason of reasons) lines.push(`- ${cell(`${who}: ${reason}`)}`);
    }
    for (const error of report.errors)
      lines.push(`- ${cell(`${format.runLabel(error, several)}: could not run: ${error.message}`)}`);
    lines.push('');
  }
  return `${lines.join('\n')}\n`;
}
