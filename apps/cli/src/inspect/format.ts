import { describePrices, formatDollars, type CostBreakdown } from '@forge/core/pricing';
import type { RunPrices, RunReport, StepBudget, TokenUsage, UsageTotals } from './report.js';

/** Budget categories in request order, with the names tables and the chart show. */
export const CATEGORY_LABELS: readonly (readonly [key: string, label: string])[] = [
  ['instructions', 'instructions'],
  ['checkpoint', 'checkpoint'],
  ['history', 'history'],
  ['request', 'request'],
  ['continuation', 'continuation'],
  ['toolSchemas', 'tool schemas'],
  ['overhead', 'overhead'],
];

/** The categories any step of the run has tokens in: known ones in request order, then any others by name. */
export function usedCategories(budget: readonly StepBudget[]): string[] {
  const used = new Set<string>();
  for (const row of budget)
    for (const [key, tokens] of Object.entries(row.categories ?? {})) if (tokens !== 0) used.add(key);
  const known = CATEGORY_LABELS.map(([key]) => key).filter((key) => used.has(key));
  const others = [...used].filter((key) => !CATEGORY_LABELS.some(([known]) => known === key)).sort();
  return [...known, ...others];
}

export function categoryLabel(key: string): string {
  return CATEGORY_LABELS.find(([known]) => known === key)?.[1] ?? key;
}

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** `12,345`, or `—` when unknown. */
export function formatCount(value: number | undefined): string {
  return value === undefined ? '—' : integer.format(value);
}

/** `+4.2%` / `-3.0%`, or `—`. */
export function formatPercent(value: number | undefined): string {
  if (value === undefined) return '—';
  return `${value > 0 ? '+' : ''}${value.toFixed(1)}%`;
}

/** `850 ms`, `12.3 s`, `4 min 05 s`, `3 h 41 min`. */
export function formatDuration(milliseconds: number | undefined): string {
  if (milliseconds === undefined) return '—';
  if (milliseconds < 1000) return `${Math.round(milliseconds)} ms`;
  if (milliseconds < 60_000) return `${(milliseconds / 1000).toFixed(1)} s`;
  const seconds = Math.round(milliseconds / 1000);
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
  const minutes = Math.round(seconds / 60);
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/** The first 12 hex digits of a hash, enough to tell hashes apart in a table. */
export function shortHash(hash: string | undefined): string {
  if (hash === undefined) return '—';
  return hash.length > 12 ? hash.slice(0, 12) : hash;
}

export function modelName(run: RunReport): string {
  return run.model === undefined ? 'unknown' : `${run.model.provider}:${run.model.modelId}`;
}

/** `input 12,000 · cached 9,984 (83%) · output 150`; the share is of the input the provider reported. */
export function usageLine(usage: TokenUsage, cacheHitRatio?: number): string {
  const share = cacheHitRatio === undefined ? '' : ` (${formatShare(cacheHitRatio)})`;
  const parts = [`input ${formatCount(usage.inputTokens)}`, `cached ${formatCount(usage.cacheReadTokens)}${share}`];
  if (usage.cacheWriteTokens !== undefined) parts.push(`cache writes ${formatCount(usage.cacheWriteTokens)}`);
  parts.push(`output ${formatCount(usage.outputTokens)}`);
  if (usage.reasoningTokens !== undefined) parts.push(`reasoning ${formatCount(usage.reasoningTokens)}`);
  return parts.join(' · ');
}

/** 0.834 → `83%`; small non-zero shares keep a decimal (`0.4%`). */
export function formatShare(ratio: number): string {
  const percent = ratio * 100;
  return `${percent > 0 && percent < 10 ? percent.toFixed(1) : Math.round(percent).toString()}%`;
}

/** A step's cost, or `—` when it has none. */
export function formatCost(cost: CostBreakdown | undefined): string {
  return cost === undefined ? '—' : formatDollars(cost.total);
}

/** `$0.0123 (fresh input $0.01 · cached $0.0012 · written $0 · output $0.0011)`, with the steps left out when some were not priced. */
export function costLine(cost: CostBreakdown | undefined, unpricedSteps: number): string {
  if (cost === undefined)
    return unpricedSteps > 0 ? 'not priced: the model had no prices when it ran (tokens only)' : '—';
  const parts = [`fresh input ${formatDollars(cost.freshInput)}`, `cached ${formatDollars(cost.cachedInput)}`];
  if (cost.cacheWrite > 0) parts.push(`written ${formatDollars(cost.cacheWrite)}`);
  parts.push(`output ${formatDollars(cost.output)}`);
  const missing =
    unpricedSteps > 0
      ? `; ${formatCount(unpricedSteps)} step${unpricedSteps === 1 ? '' : 's'} without a cost not included`
      : '';
  return `${formatDollars(cost.total)} (${parts.join(' · ')})${missing}`;
}

/** The rates a run was priced with and where they came from. */
export function pricesLine(prices: RunPrices): string {
  const origin = [
    prices.source === 'config' ? 'configuration' : prices.source === 'table' ? 'capability table' : prices.source,
    prices.asOf === undefined ? undefined : `as of ${prices.asOf}`,
  ]
    .filter((part): part is string => part !== undefined)
    .join(', ');
  return `${describePrices(prices)}${origin === '' ? '' : ` (${origin})`}${prices.note === undefined ? '' : `; ${prices.note}`}`;
}

/** Which cost columns a run's step table needs: written only when the provider reported cache writes, cost only when a step was priced. */
export function costColumns(run: RunReport): { readonly written: boolean; readonly priced: boolean } {
  return {
    written: run.budget.some((row) => row.cacheWriteTokens !== undefined && row.cacheWriteTokens > 0),
    priced: run.budget.some((row) => row.cost !== undefined),
  };
}

/** The totals line of a session: usage, cache share and cost. */
export function totalsLine(totals: UsageTotals): string {
  return `${usageLine(totals.usage, totals.cacheHitRatio)}; cost ${costLine(totals.cost, totals.unpricedSteps)}`;
}

/** `2 ok, 1 error` from outcome counts, ok first. */
export function outcomeCounts(outcomes: Readonly<Record<string, number>>): string {
  const order = ['ok', 'error', 'denied', 'cancelled'];
  const keys = Object.keys(outcomes).sort(
    (left, right) => (order.indexOf(left) + 1 || 99) - (order.indexOf(right) + 1 || 99) || left.localeCompare(right),
  );
  return keys.map((key) => `${String(outcomes[key] ?? 0)} ${key}`).join(', ');
}

/** Human words for a stop kind. */
export function stopLabel(kind: string): string {
  switch (kind) {
    case 'context_limit':
      return 'context limit';
    case 'step_limit':
      return 'step limit';
    case 'step_failed':
      return 'step failed';
    default:
      return kind;
  }
}

/** Short notes on a step: compacted before it, warned, failed, stopped at it. */
export function stepNotes(budget: StepBudget, run: RunReport): string[] {
  const notes: string[] = [];
  if (run.compactions.some((compaction) => compaction.beforeStep === budget.step && compaction.outcome === 'completed'))
    notes.push('compacted');
  if (budget.warned) notes.push('warning');
  if (budget.failed !== undefined) notes.push(`failed: ${budget.failed.code}`);
  if (budget.estimateCovers === 'wrapper') notes.push("estimate: Forge's part only");
  if (run.stops.some((stop) => stop.step === budget.step && (stop.kind === 'context_limit' || stop.kind === 'guard')))
    notes.push('stopped');
  return notes;
}

/** `25 of 100 allowed`, or just the count when the limit is unknown. */
export function stepsLine(run: RunReport): string {
  return `${formatCount(run.steps)}${run.maxSteps === undefined ? '' : ` of ${formatCount(run.maxSteps)} allowed`}`;
}

/** `16,000 tokens (table, estimated by conservative-fallback); 14,000 for input after the reserve; mode warn`. */
export function windowLine(window: NonNullable<RunReport['window']>): string {
  const details = [
    window.source,
    window.estimationMethod === undefined ? undefined : `estimated by ${window.estimationMethod}`,
  ].filter((part) => part !== undefined);
  const parts = [`${formatCount(window.tokens)} tokens${details.length === 0 ? '' : ` (${details.join(', ')})`}`];
  if (window.availableInputTokens !== undefined)
    parts.push(`${formatCount(window.availableInputTokens)} for input after the output reserve`);
  if (window.mode !== undefined) parts.push(`context mode ${window.mode}`);
  return parts.join('; ');
}
