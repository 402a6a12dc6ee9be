import { categoryLabel, formatCount, formatPercent, stopLabel, usedCategories } from './format.js';
import { escapeHtml } from './html-escape.js';
import type { CompactionRow, RunReport, StepBudget } from './report.js';

/** More steps than this are drawn in buckets, one bar per bucket (the bucket's largest step). */
export const MAX_CHART_COLUMNS = 600;

/** More columns with compactions than this get short ticks above the plot instead of full-height lines. */
const MAX_FULL_MARKERS = 60;
const WIDTH = 960;
const HEIGHT = 340;
const MARGIN = { left: 72, right: 16, top: 28, bottom: 44 };

/** Colours of the budget categories, in request order; unknown categories reuse the last ones. */
export const CATEGORY_COLOURS: Readonly<Record<string, string>> = {
  instructions: '#6b5bd2',
  checkpoint: '#c2185b',
  history: '#1f77b4',
  request: '#2ca02c',
  continuation: '#ff9f1c',
  toolSchemas: '#8c564b',
  overhead: '#9e9e9e',
};
const EXTRA_COLOURS = ['#17becf', '#bcbd22', '#e377c2', '#7f7f7f'];
const UNCATEGORISED = '#5c7c99';
const REPORTED_ONLY = '#b0bec5';

interface Column {
  readonly first: number;
  readonly last: number;
  readonly row: StepBudget;
}

function height(row: StepBudget): number {
  return row.estimatedTokens ?? row.reportedInputTokens ?? 0;
}

/** One column per step, or per bucket of steps when there are too many to draw one by one. */
function columnsOf(budget: readonly StepBudget[]): { columns: Column[]; stepsPerColumn: number } {
  const stepsPerColumn = Math.max(1, Math.ceil(budget.length / MAX_CHART_COLUMNS));
  const columns: Column[] = [];
  for (let start = 0; start < budget.length; start += stepsPerColumn) {
    const bucket = budget.slice(start, start + stepsPerColumn);
    const tallest = bucket.reduce((best, row) => (height(row) > height(best) ? row : best));
    columns.push({ first: bucket[0]?.step ?? tallest.step, last: bucket.at(-1)?.step ?? tallest.step, row: tallest });
  }
  return { columns, stepsPerColumn };
}

/** Index of the first row (rows are sorted by step) whose step is at least `step`; the length when none is. */
function firstRowAtOrAfter(budget: readonly StepBudget[], step: number): number {
  let low = 0;
  let high = budget.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((budget[middle]?.step ?? Number.POSITIVE_INFINITY) < step) low = middle + 1;
    else high = middle;
  }
  return low;
}

function niceStep(maximum: number): number {
  const rough = maximum / 4;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const normalized = rough / magnitude;
  const factor = normalized <= 1 ? 1 : normalized <= 2 ? 2 : normalized <= 5 ? 5 : 10;
  return factor * magnitude;
}

function colourOf(category: string, categories: readonly string[]): string {
  const known = CATEGORY_COLOURS[category];
  if (known !== undefined) return known;
  const extraIndex = categories.filter((key) => CATEGORY_COLOURS[key] === undefined).indexOf(category);
  return EXTRA_COLOURS[extraIndex % EXTRA_COLOURS.length] ?? UNCATEGORISED;
}

function tooltip(column: Column): string {
  const { row } = column;
  const label =
    column.first === column.last
      ? `step ${String(row.step)}`
      : `steps ${String(column.first)}–${String(column.last)} (largest: step ${String(row.step)})`;
  const parts = [
    label,
    `estimate ${formatCount(row.estimatedTokens)}`,
    `reported ${formatCount(row.reportedInputTokens)}`,
    `cached ${formatCount(row.cachedInputTokens)}`,
    `error ${formatPercent(row.errorPercent)}`,
  ];
  for (const [key, tokens] of Object.entries(row.categories ?? {}))
    parts.push(`${categoryLabel(key)} ${formatCount(tokens)}`);
  return parts.join('\n');
}

/** The legend entries the chart uses, for the page to show beside it. */
export function chartLegend(
  run: RunReport,
): { readonly label: string; readonly colour: string; readonly kind: 'swatch' | 'point' | 'marker' }[] {
  const categories = usedCategories(run.budget);
  const entries: { label: string; colour: string; kind: 'swatch' | 'point' | 'marker' }[] = categories.map((key) => ({
    label: categoryLabel(key),
    colour: colourOf(key, categories),
    kind: 'swatch',
  }));
  if (run.budget.some((row) => row.categories === undefined && row.estimatedTokens !== undefined))
    entries.push({ label: 'estimate', colour: UNCATEGORISED, kind: 'swatch' });
  if (run.budget.some((row) => row.estimatedTokens === undefined && row.reportedInputTokens !== undefined))
    entries.push({ label: 'reported input (no estimate)', colour: REPORTED_ONLY, kind: 'swatch' });
  if (run.budget.some((row) => row.reportedInputTokens !== undefined))
    entries.push({ label: 'provider-reported input', colour: '#111111', kind: 'point' });
  if (run.compactions.length > 0) entries.push({ label: 'compaction', colour: '#d62728', kind: 'marker' });
  return entries;
}

/**
 * An inline SVG of the input tokens of every step: a bar per step stacked by budget category
 * (or the provider-reported input when no estimate was made), a dot for the reported input,
 * dashed lines where compactions happened and triangles where the run stopped at a limit.
 */
export function contextChart(run: RunReport): string {
  const chart = chartGeometry(run);
  const parts = [
    ...gridLines(chart),
    ...windowLine(chart),
    ...stepBars(chart),
    ...reportedInputPoints(chart),
    ...compactionMarkers(chart),
    ...stopMarkers(chart),
    ...noDataNotice(chart),
    ...axes(chart),
  ];
  const { columns, stepsPerColumn } = chart;
  const title = `Context use per step of run ${run.runId}`;
  return `<svg class="context-chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${escapeHtml(title)}" data-columns="${columns.length}" data-steps-per-column="${stepsPerColumn}">${parts.join('')}</svg>`;
}

/** Where everything of one run's chart goes: the scale, the bar columns and the mapping of steps onto them. */
interface ChartGeometry {
  readonly run: RunReport;
  readonly columns: readonly Column[];
  readonly stepsPerColumn: number;
  readonly plotWidth: number;
  readonly plotHeight: number;
  readonly top: number;
  readonly tick: number;
  readonly showWindow: boolean;
  readonly slot: number;
  readonly barWidth: number;
  readonly categories: readonly string[];
  readonly y: (tokens: number) => number;
  readonly x: (index: number) => number;
  readonly columnOfStep: (step: number) => number;
}

function chartGeometry(run: RunReport): ChartGeometry {
  const { columns, stepsPerColumn } = columnsOf(run.budget);
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const largest = Math.max(
    1,
    ...run.budget.map((row) => Math.max(row.estimatedTokens ?? 0, row.reportedInputTokens ?? 0)),
  );
  const showWindow = run.window !== undefined && run.window.tokens <= largest * 1.6;
  const top = Math.max(largest, showWindow && run.window !== undefined ? run.window.tokens : 0) * 1.08;
  const slot = plotWidth / Math.max(1, columns.length);
  const barWidth = Math.max(1, slot * 0.72);
  return {
    run,
    columns,
    stepsPerColumn,
    plotWidth,
    plotHeight,
    top,
    tick: Math.max(1, niceStep(top)),
    showWindow,
    slot,
    barWidth,
    categories: usedCategories(run.budget),
    y: (tokens) => MARGIN.top + plotHeight - (tokens / top) * plotHeight,
    x: (index) => MARGIN.left + index * slot + (slot - barWidth) / 2,
    columnOfStep: (step) => Math.floor(firstRowAtOrAfter(run.budget, step) / stepsPerColumn),
  };
}

function gridLines({ top, tick, y }: ChartGeometry): string[] {
  const parts: string[] = [];
  for (let value = 0; value <= top; value += tick) {
    parts.push(
      `<line class="grid" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(value).toFixed(1)}" y2="${y(value).toFixed(1)}" stroke="#e3e3e3"/>`,
      `<text x="${MARGIN.left - 8}" y="${(y(value) + 4).toFixed(1)}" text-anchor="end" font-size="11" fill="#555">${formatCount(value)}</text>`,
    );
  }
  return parts;
}

function windowLine({ run, showWindow, y }: ChartGeometry): string[] {
  if (!showWindow || run.window === undefined) return [];
  const windowY = y(run.window.tokens).toFixed(1);
  return [
    `<line class="window-line" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${windowY}" y2="${windowY}" stroke="#333" stroke-dasharray="2 3"/>`,
    `<text x="${WIDTH - MARGIN.right}" y="${(Number(windowY) - 4).toFixed(1)}" text-anchor="end" font-size="11" fill="#333">context window ${formatCount(run.window.tokens)}</text>`,
  ];
}

function stepBars(chart: ChartGeometry): string[] {
  const { columns, x, barWidth } = chart;
  const parts: string[] = [];
  const labelEvery = Math.max(1, Math.ceil(columns.length / 16));
  columns.forEach((column, index) => {
    const steps =
      column.first === column.last ? String(column.first) : `${String(column.first)}-${String(column.last)}`;
    parts.push(
      `<g class="step-bar" data-step="${steps}"><title>${escapeHtml(tooltip(column))}</title>${barSegments(chart, column, index).join('')}</g>`,
    );
    if (index % labelEvery === 0) {
      parts.push(
        `<text x="${(x(index) + barWidth / 2).toFixed(1)}" y="${HEIGHT - MARGIN.bottom + 16}" text-anchor="middle" font-size="11" fill="#555">${column.first}</text>`,
      );
    }
  });
  return parts;
}

/** One bar stacked by budget category, or the estimate or the reported input when that is all there is. */
function barSegments({ categories, x, y, barWidth }: ChartGeometry, column: Column, index: number): string[] {
  const { row } = column;
  const segments: string[] = [];
  let base = 0;
  const stack = (tokens: number, colour: string, name: string) => {
    if (tokens <= 0) return;
    segments.push(
      `<rect class="segment" data-category="${escapeHtml(name)}" x="${x(index).toFixed(1)}" y="${y(base + tokens).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${(y(base) - y(base + tokens)).toFixed(1)}" fill="${colour}"/>`,
    );
    base += tokens;
  };
  if (row.categories !== undefined) {
    for (const key of categories) stack(row.categories[key] ?? 0, colourOf(key, categories), key);
  } else if (row.estimatedTokens !== undefined) {
    stack(row.estimatedTokens, UNCATEGORISED, 'estimate');
  } else if (row.reportedInputTokens !== undefined) {
    stack(row.reportedInputTokens, REPORTED_ONLY, 'reported');
  }
  return segments;
}

function reportedInputPoints({ columns, x, y, barWidth }: ChartGeometry): string[] {
  const parts: string[] = [];
  const points = columns.flatMap((column, index) =>
    column.row.reportedInputTokens === undefined
      ? []
      : [{ cx: x(index) + barWidth / 2, cy: y(column.row.reportedInputTokens), column }],
  );
  if (points.length > 1) {
    parts.push(
      `<polyline class="reported-line" fill="none" stroke="#111" stroke-width="1" stroke-opacity="0.5" points="${points.map((point) => `${point.cx.toFixed(1)},${point.cy.toFixed(1)}`).join(' ')}"/>`,
    );
  }
  for (const point of points) {
    parts.push(
      `<circle class="reported-point" cx="${point.cx.toFixed(1)}" cy="${point.cy.toFixed(1)}" r="3.5" fill="#111"><title>reported input ${formatCount(point.column.row.reportedInputTokens)}</title></circle>`,
    );
  }
  return parts;
}

function compactionMarkers({ run, slot, columnOfStep }: ChartGeometry): string[] {
  const parts: string[] = [];
  const markerColumns = new Map<number, CompactionRow[]>();
  for (const compaction of run.compactions) {
    const column = columnOfStep(compaction.beforeStep);
    markerColumns.set(column, [...(markerColumns.get(column) ?? []), compaction]);
  }
  // With many compactions, full-height lines would hide the bars: mark them with ticks above the plot.
  const markerBottom = markerColumns.size > MAX_FULL_MARKERS ? MARGIN.top : HEIGHT - MARGIN.bottom;
  for (const [column, compactions] of markerColumns) {
    const markerX = (MARGIN.left + column * slot).toFixed(1);
    const first = compactions[0];
    if (first === undefined) continue;
    const completed = compactions.every((compaction) => compaction.outcome === 'completed');
    const words = compactions.map((compaction) =>
      [
        `compaction before step ${String(compaction.beforeStep)}: ${compaction.outcome}`,
        compaction.strategy,
        compaction.reclaimedTokens === undefined ? undefined : `reclaimed ${formatCount(compaction.reclaimedTokens)}`,
      ]
        .filter((word) => word !== undefined)
        .join(', '),
    );
    parts.push(
      `<g class="compaction-marker" data-before-step="${first.beforeStep}" data-count="${compactions.length}" data-outcome="${completed ? 'completed' : escapeHtml(compactions.find((compaction) => compaction.outcome !== 'completed')?.outcome ?? first.outcome)}"><title>${escapeHtml(words.join('\n'))}</title>` +
        `<line x1="${markerX}" x2="${markerX}" y1="${MARGIN.top - 6}" y2="${markerBottom}" stroke="#d62728" stroke-width="2" stroke-dasharray="${completed ? '6 3' : '2 2'}"/>` +
        (markerBottom === MARGIN.top
          ? ''
          : `<text x="${markerX}" y="${MARGIN.top - 10}" text-anchor="middle" font-size="11" font-weight="bold" fill="#d62728">C</text>`) +
        '</g>',
    );
  }
  return parts;
}

function stopMarkers({ run, columns, slot, x, barWidth, columnOfStep }: ChartGeometry): string[] {
  const parts: string[] = [];
  for (const stop of run.stops) {
    if (stop.step === undefined) continue;
    const index = columnOfStep(stop.step);
    const centre = index >= columns.length ? MARGIN.left + columns.length * slot : x(index) + barWidth / 2;
    const baseY = HEIGHT - MARGIN.bottom + 22;
    parts.push(
      `<g class="stop-marker" data-step="${stop.step}"><title>${escapeHtml(`${stopLabel(stop.kind)} at step ${String(stop.step)}: ${stop.reason}`)}</title>` +
        `<path d="M${(centre - 6).toFixed(1)},${baseY + 10} L${(centre + 6).toFixed(1)},${baseY + 10} L${centre.toFixed(1)},${baseY} Z" fill="#e65100"/></g>`,
    );
  }
  return parts;
}

function noDataNotice({ run, plotWidth, plotHeight }: ChartGeometry): string[] {
  if (run.budget.some((row) => row.estimatedTokens !== undefined || row.reportedInputTokens !== undefined)) return [];
  return [
    `<text class="no-data" x="${MARGIN.left + plotWidth / 2}" y="${MARGIN.top + plotHeight / 2}" text-anchor="middle" font-size="13" fill="#666">No token counts in this trace: no budget estimates and no provider-reported usage.</text>`,
  ];
}

function axes({ plotWidth, plotHeight, stepsPerColumn }: ChartGeometry): string[] {
  const axisY = HEIGHT - MARGIN.bottom;
  return [
    `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${axisY}" y2="${axisY}" stroke="#333"/>`,
    `<text x="${MARGIN.left + plotWidth / 2}" y="${HEIGHT - 4}" text-anchor="middle" font-size="12" fill="#333">${stepsPerColumn === 1 ? 'model step' : `model step (one bar per ${String(stepsPerColumn)} steps, showing the largest)`}</text>`,
    `<text transform="translate(14 ${MARGIN.top + plotHeight / 2}) rotate(-90)" text-anchor="middle" font-size="12" fill="#333">input tokens</text>`,
  ];
}
