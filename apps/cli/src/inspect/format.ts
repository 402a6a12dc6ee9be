import type { RunReport, StepBudget, TokenUsage } from './report.js';

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
  for (const row of budget) for (const [key, tokens] of Object.entries(row.categories ?? {})) if (tokens !== 0) used.add(key);
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

export function usageLine(usage: TokenUsage): string {
  const parts = [`input ${formatCount(usage.inputTokens)}`, `cached ${formatCount(usage.cacheReadTokens)}`];
  if (usage.cacheWriteTokens !== undefined) parts.push(`cache writes ${formatCount(usage.cacheWriteTokens)}`);
  parts.push(`output ${formatCount(usage.outputTokens)}`);
  if (usage.reasoningTokens !== undefined) parts.push(`reasoning ${formatCount(usage.reasoningTokens)}`);
  return parts.join(' · ');
}

/** `2 ok, 1 error` from outcome counts, ok first. */
export function outcomeCounts(outcomes: Readonly<Record<string, number>>): string {
  const order = ['ok', 'error', 'denied', 'cancelled'];
  const keys = Object.keys(outcomes).sort((left, right) => (order.indexOf(left) + 1 || 99) - (order.indexOf(right) + 1 || 99) || left.localeCompare(right));
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
  if (run.compactions.some((compaction) => compaction.beforeStep === budget.step && compaction.outcome === 'completed')) notes.push('compacted');
  if (budget.warned) notes.push('warning');
  if (budget.failed !== undefined) notes.push(`failed: ${budget.failed.code}`);
  if (budget.estimateCovers === 'wrapper') notes.push("estimate: Forge's part only");
  if (run.stops.some((stop) => stop.step === budget.step && (stop.kind === 'context_limit' || stop.kind === 'guard'))) notes.push('stopped');
  return notes;
}

/** `25 of 100 allowed`, or just the count when the limit is unknown. */
export function stepsLine(run: RunReport): string {
  return `${formatCount(run.steps)}${run.maxSteps === undefined ? '' : ` of ${formatCount(run.maxSteps)} allowed`}`;
}

/** `16,000 tokens (table, estimated by conservative-fallback); 14,000 for input after the reserve; mode warn`. */
export function windowLine(window: NonNullable<RunReport['window']>): string {
  const details = [window.source, window.estimationMethod === undefined ? undefined : `estimated by ${window.estimationMethod}`].filter((part) => part !== undefined);
  const parts = [`${formatCount(window.tokens)} tokens${details.length === 0 ? '' : ` (${details.join(', ')})`}`];
  if (window.availableInputTokens !== undefined) parts.push(`${formatCount(window.availableInputTokens)} for input after the output reserve`);
  if (window.mode !== undefined) parts.push(`context mode ${window.mode}`);
  return parts.join('; ');
}
