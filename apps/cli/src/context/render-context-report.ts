import type { ModelAdapter, TokenCategories, TokenEstimateMethod } from '@forge/core';
import { formatMessageRange, formatTokens, type ContextReport } from '@forge/core/budget';
import { describePrices, describePriceSource, formatDollars } from '@forge/core/pricing';

type CapabilitySource = ModelAdapter['capabilities']['source'];
type BudgetDecision = ContextReport['budget']['decision'];
type ViewDecision = ContextReport['decision'];

export interface RenderContextOptions {
  /** ANSI colours; pass false for pipes, files and `NO_COLOR`. */
  readonly color: boolean;
  /** Width of the usage bar in characters (default 40). */
  readonly barWidth?: number;
}

const sourceLabels: Record<CapabilitySource, string> = {
  table: 'capability table',
  config: 'configuration',
  fallback: 'fallback: unknown model, conservative default',
};

const methodLabels: Record<TokenEstimateMethod, string> = {
  'provider-tokenizer': "the provider's tokenizer",
  sdk: 'the SDK',
  'conservative-fallback': 'a conservative estimate (errs high)',
};

const decisionLabels: Record<BudgetDecision, string> = {
  ok: 'fits',
  warn: 'past the warning threshold',
  limit_reached: 'does not fit: the next step would stop before sending',
  off: 'fits (mode off: no warnings)',
};

function decisionLabel(report: ContextReport): string {
  const decision: ViewDecision = report.decision;
  if (decision.kind === 'compact') {
    return decision.trigger === 'over_budget'
      ? 'does not fit: the next step compacts older turns first'
      : 'past the compaction threshold: the next step compacts older turns first';
  }
  if (decision.kind === 'cannot_fit' && decision.reason === 'whole_history') {
    return `does not fit: mode ${report.budget.mode} sends the whole conversation, so the next step would stop before sending`;
  }
  return decisionLabels[report.budget.decision];
}

const rows: readonly {
  readonly key: keyof TokenCategories;
  readonly label: string;
  readonly mark: string;
  readonly color: number;
}[] = [
  { key: 'instructions', label: 'Instructions', mark: 'I', color: 35 },
  { key: 'checkpoint', label: 'Checkpoint', mark: 'C', color: 36 },
  { key: 'history', label: 'History', mark: 'H', color: 34 },
  { key: 'request', label: 'Current request', mark: 'R', color: 32 },
  { key: 'continuation', label: 'This run so far', mark: 'T', color: 33 },
  { key: 'toolSchemas', label: 'Tool schemas', mark: 'S', color: 31 },
  { key: 'overhead', label: 'Framing', mark: 'F', color: 90 },
];

function paint(text: string, code: number, color: boolean): string {
  return color ? `\u001b[${code}m${text}\u001b[0m` : text;
}

function share(part: number, whole: number): string {
  if (whole <= 0) return '';
  const value = (part / whole) * 100;
  return `${value < 10 && value > 0 ? value.toFixed(1) : Math.round(value).toString()}%`;
}

/**
 * The `forge context` / `/context` view of a report: model, window and its source, estimation
 * method, tokens by category with a usage bar, reserve, available input, free space and retained
 * turns. Pure: the same report and options give the same text.
 */
export function renderContextReport(report: ContextReport, options: RenderContextOptions): string {
  const { budget } = report;
  const { color } = options;
  const exact = budget.estimate.confidence === 'exact';
  const estimated = exact ? '' : ' (estimated)';
  const available = budget.availableInputTokens;
  const lines: string[] = [];
  const bold = (text: string) => paint(text, 1, color);
  const dim = (text: string) => paint(text, 2, color);

  lines.push(bold(`Context for ${report.model.provider}:${report.model.modelId}`));
  const inputCap = budget.maxInputTokens === undefined ? '' : `, input cap ${formatTokens(budget.maxInputTokens)}`;
  lines.push(
    `  Window       ${formatTokens(budget.contextWindowTokens)} tokens${inputCap} — from the ${sourceLabels[budget.windowSource]}`,
  );
  lines.push(
    `  Counted by   ${methodLabels[budget.estimate.method]}, ${exact ? 'exact text counts' : 'estimated'}; framing is modelled`,
  );
  lines.push(`  Mode         ${budget.mode} — ${decisionLabel(report)}`);
  lines.push('');
  lines.push(`  ${renderBar(report, options)}`);
  lines.push('');

  const labelWidth = 18;
  const numberWidth = Math.max(9, formatTokens(budget.estimate.tokens).length + 1);
  lines.push(dim(`  ${'Category'.padEnd(labelWidth)}${'Tokens'.padStart(numberWidth)}  of available`));
  for (const row of rows) {
    const tokens = budget.estimate.categories[row.key];
    let note = '';
    if (row.key === 'history')
      note = `  ${report.retainedMessages} message${report.retainedMessages === 1 ? '' : 's'} verbatim`;
    if (row.key === 'toolSchemas') note = `  ${report.toolCount} tool${report.toolCount === 1 ? '' : 's'}`;
    const mark = paint(row.mark, row.color, color);
    lines.push(
      `  ${mark} ${row.label.padEnd(labelWidth - 2)}${formatTokens(tokens).padStart(numberWidth)}  ${share(tokens, available).padStart(5)}${note}`,
    );
    if (row.key === 'toolSchemas') {
      for (const group of report.toolGroups ?? []) {
        lines.push(
          dim(
            `      ${group.name.padEnd(labelWidth - 6)}${formatTokens(group.tokens).padStart(numberWidth)}         ${group.tools} tool${group.tools === 1 ? '' : 's'}`,
          ),
        );
      }
    }
  }
  lines.push(
    `  ${bold(`Total${estimated}`.padEnd(labelWidth))}${formatTokens(budget.estimate.tokens).padStart(numberWidth)}  ${share(budget.estimate.tokens, available).padStart(5)}`,
  );
  lines.push('');

  const freeLabel =
    budget.freeTokens < 0
      ? paint(`${formatTokens(budget.freeTokens)} (over budget)`, 31, color)
      : formatTokens(budget.freeTokens);
  lines.push(
    `  Reserve          ${formatTokens(budget.reservedTokens)} = max(output ${formatTokens(budget.requestedOutputTokens)}, buffer ${formatTokens(budget.bufferTokens)})`,
  );
  lines.push(`  Available input  ${formatTokens(available)}`);
  lines.push(`  Free             ${freeLabel}`);
  lines.push(`  Warn above       ${formatTokens(budget.warnAtTokens)}`);
  if (budget.mode === 'compact' || budget.mode === 'shadow') {
    const verb = budget.mode === 'compact' ? 'compacts' : 'would compact (shadow)';
    lines.push(
      `  Compact above    ${formatTokens(budget.compactAtTokens)}: ${verb} down to ${formatTokens(budget.compactTargetTokens)}`,
    );
  }
  lines.push(
    `  Room for history ${formatTokens(budget.remainingHistoryTokens)} (available − mandatory ${formatTokens(budget.mandatoryTokens)} − checkpoint)`,
  );
  if (report.sessionMessages !== undefined) {
    const covered = report.view?.coveredMessages ?? 0;
    const summary = covered > 0 ? `${formatMessageRange(0, covered)} in the checkpoint, ` : '';
    const verbatim = formatMessageRange(covered, report.sessionMessages);
    lines.push(`  Session          ${report.sessionMessages} messages: ${summary}${verbatim} verbatim, none left out`);
  }
  if (report.checkpoint !== undefined) {
    const { id, strategy, summarizedThrough, sourceHash } = report.checkpoint;
    const parts = [
      id === undefined ? undefined : id,
      strategy === undefined ? undefined : `strategy ${strategy}`,
      summarizedThrough === undefined ? undefined : `summarizes messages ${formatMessageRange(0, summarizedThrough)}`,
      sourceHash === undefined ? undefined : `source ${sourceHash.slice(0, 12)}`,
      report.checkpoint.unusedInMode === undefined
        ? undefined
        : `not sent in mode ${report.checkpoint.unusedInMode} (only compact sends it)`,
    ].filter((part): part is string => part !== undefined);
    lines.push(`  Checkpoint       ${parts.join(', ')}`);
  }
  lines.push(...costLines(report, color));
  if (report.accuracy !== undefined && report.accuracy.samples > 0) {
    const { meanErrorPercent, samples, unsafeForAutoCompaction } = report.accuracy;
    const sign = meanErrorPercent > 0 ? '+' : '';
    const flag = unsafeForAutoCompaction
      ? paint(' — undercounts too often: unsafe for automatic compaction', 31, color)
      : '';
    lines.push(
      `  Estimate error   ${sign}${meanErrorPercent}% on average over ${samples} step${samples === 1 ? '' : 's'}${flag}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** Prices, the next request's cost cold and warm, and the session's cost so far; or why there is no cost. */
function costLines(report: ContextReport, color: boolean): string[] {
  const cost = report.nextRequestCost;
  if (cost === undefined) {
    // A scripted model answers from a script, not a provider: there is nothing to bill, so nothing to set.
    const why =
      report.model.provider === 'scripted'
        ? 'none: a scripted model is not billed by any provider'
        : 'not known for this model: costs are shown in tokens only (set "prices" in your user configuration)';
    return [`  Prices           ${paint(why, 2, color)}`];
  }
  const lines = [
    `  Prices           ${describePrices(cost.prices)}`,
    `                   from the ${describePriceSource(cost.prices)}`,
  ];
  if (cost.prices.note !== undefined) lines.push(`                   ${cost.prices.note}`);
  const warm =
    cost.cacheableTokens > 0
      ? `, ${formatDollars(cost.warmInput)} if ${formatTokens(cost.cacheableTokens)} are read from the prompt cache`
      : '';
  lines.push(`  Next request     input ${formatDollars(cost.coldInput)} with a cold cache${warm}`);
  const compacted = report.compactedBeforeSending;
  if (compacted !== undefined)
    lines.push(
      `                   as sent after the compaction the next step makes first (${formatTokens(compacted.tokensBefore)} → ${formatTokens(compacted.tokensAfter)})`,
    );
  lines.push(
    `                   output up to ${formatDollars(cost.outputUpTo)} (the ${formatTokens(cost.reservedOutputTokens)} reserved)`,
  );
  const session = report.sessionCost;
  if (session !== undefined) {
    const cached =
      session.cacheHitRatio === undefined ? '' : `, ${Math.round(session.cacheHitRatio * 100)}% of input cached`;
    const unpriced =
      session.unpricedSteps === undefined
        ? ''
        : `; ${session.unpricedSteps} step${session.unpricedSteps === 1 ? '' : 's'} not priced (usage not reported)`;
    lines.push(`  Session so far   ${formatDollars(session.cost.total)}${cached}${unpriced}`);
  }
  return lines;
}

function renderBar(report: ContextReport, options: RenderContextOptions): string {
  const width = options.barWidth ?? 40;
  const { budget } = report;
  const scale = Math.max(budget.availableInputTokens, budget.estimate.tokens, 1);
  const cellAt = (tokens: number) => Math.round((tokens / scale) * width);
  let bar = '';
  let cumulative = 0;
  let drawn = 0;
  for (const row of rows) {
    cumulative += budget.estimate.categories[row.key];
    const cells = cellAt(cumulative) - drawn;
    if (cells > 0) bar += paint(row.mark.repeat(cells), row.color, options.color);
    drawn += Math.max(0, cells);
  }
  bar += '.'.repeat(Math.max(0, width - drawn));
  return `[${bar}] ${share(budget.estimate.tokens, budget.availableInputTokens)} of available input used`;
}
