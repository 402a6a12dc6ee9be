import {
  categoryLabel,
  costColumns,
  costLine,
  formatCost,
  formatCount,
  formatDuration,
  formatPercent,
  modelName,
  pricesLine,
  stepNotes,
  stepsLine,
  usageLine,
  usedCategories,
  windowLine,
} from './format.js';
import type { RunReport, StepBudget } from './report.js';

/** One line of a run's summary; `tone` says how a renderer marks it (status colour, warning, error). */
export interface SummaryField {
  readonly label: string;
  readonly value: string;
  readonly tone?: 'status' | 'warning' | 'error';
}

/**
 * What every rendering of a run summary shows, in order. `estimateError`: include the mean
 * absolute estimate error (the terminal shows it under the budget table instead).
 */
export function summaryFields(run: RunReport, options: { readonly estimateError: boolean }): SummaryField[] {
  const calls = `${formatCount(run.toolCalls.total)} ${run.toolCalls.total === 1 ? 'call' : 'calls'}`;
  const advertised =
    run.advertisedTools.length === 0
      ? 'none advertised'
      : `${String(run.advertisedTools.length)} advertised: ${run.advertisedTools.join(', ')}`;
  const fields: SummaryField[] = [
    { label: 'trace', value: run.file },
    { label: 'engine', value: run.engine },
    { label: 'model', value: modelName(run) },
    { label: 'status', value: run.status, tone: 'status' },
    { label: 'started', value: run.startedAt ?? '—' },
    { label: 'duration', value: formatDuration(run.durationMs) },
    { label: 'steps', value: stepsLine(run) },
    { label: 'tools', value: `${calls} (${advertised})` },
    { label: 'instructions', value: run.instructionsHash === undefined ? '—' : `sha256 ${run.instructionsHash}` },
    {
      label: 'usage',
      value: `${usageLine(run.usage, run.cacheHitRatio)}${run.engine === 'codex' ? ' (reported by Codex)' : ''}`,
    },
    { label: 'cost', value: costLine(run.cost, run.unpricedSteps) },
  ];
  if (run.prices !== undefined) fields.push({ label: 'prices', value: pricesLine(run.prices) });
  if (run.window !== undefined) fields.push({ label: 'window', value: windowLine(run.window) });
  if (run.estimatorFlagged !== undefined)
    fields.push({ label: 'estimator', value: run.estimatorFlagged, tone: 'warning' });
  if (options.estimateError && run.meanAbsoluteErrorPercent !== undefined) {
    fields.push({ label: 'estimate error', value: `${run.meanAbsoluteErrorPercent.toFixed(1)}% mean absolute` });
  }
  if (run.error !== undefined)
    fields.push({ label: 'error', value: `${run.error.message} (${run.error.code})`, tone: 'error' });
  return fields;
}

/** One column of the budget-per-step table; `kind` lets a renderer mark the error and note cells. */
export interface BudgetColumn {
  readonly header: string;
  readonly numeric: boolean;
  readonly kind: 'value' | 'error' | 'note';
  text(budget: StepBudget): string;
}

/** The budget table's columns for `run`: only the categories it used, written and cost when any step has them. */
export function budgetColumns(run: RunReport): BudgetColumn[] {
  const { written, priced } = costColumns(run);
  const value = (header: string, text: (budget: StepBudget) => string): BudgetColumn => ({
    header,
    numeric: true,
    kind: 'value',
    text,
  });
  return [
    value('step', (budget) => String(budget.step)),
    ...usedCategories(run.budget).map((key) =>
      value(categoryLabel(key), (budget) => formatCount(budget.categories?.[key])),
    ),
    value('estimate', (budget) => formatCount(budget.estimatedTokens)),
    value('input', (budget) => formatCount(budget.reportedInputTokens)),
    value('cached', (budget) => formatCount(budget.cachedInputTokens)),
    ...(written ? [value('written', (budget) => formatCount(budget.cacheWriteTokens))] : []),
    ...(priced ? [value('cost', (budget) => formatCost(budget.cost))] : []),
    { header: 'error', numeric: true, kind: 'error', text: (budget) => formatPercent(budget.errorPercent) },
    { header: 'note', numeric: false, kind: 'note', text: (budget) => stepNotes(budget, run).join(', ') },
  ];
}
