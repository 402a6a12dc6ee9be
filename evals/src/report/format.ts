import { describePrices } from '@forge/core/pricing';
import type { GateResult } from '../gates/gates.js';
import type { FixtureModeMetrics } from '../metrics/metrics.js';
import type { ModeId } from '../modes/types.js';
import { AGENT_DESCRIPTIONS } from '../policy/habits.js';
import type { EvalReport } from '../run/run-eval.js';

/** Text decorations; every method returns its input unchanged when colour is off. */
export interface Paint {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
}

export const NO_PAINT: Paint = {
  bold: (text) => text,
  dim: (text) => text,
  red: (text) => text,
  green: (text) => text,
  yellow: (text) => text,
};

/** 1234 → `1,234`; 1_234_567 → `1.23M`. */
export function formatCount(value: number): string {
  if (Math.abs(value) >= 1_000_000) return `${(value / 1_000_000).toFixed(2)}M`;
  return Math.round(value).toLocaleString('en-US');
}

export function formatPercent(value: number): string {
  return `${(value * 100).toFixed(1)} %`;
}

/** Window fill: 0.21 → `0.21×`, 2.5 → `2.50×` (the whole history over the available input). */
export function formatFill(value: number): string {
  return `${value.toFixed(2)}×`;
}

/**
 * Compactions per fixture, ordered by how full the whole history gets (its peak window fill over
 * every run of the fixture): one row per fixture, one column per mode that ran; shadow mode's
 * checkpoints, built but never installed, in parentheses.
 */
export function compactionsByFill(report: EvalReport): {
  readonly headers: readonly string[];
  readonly rows: readonly (readonly string[])[];
} {
  const modes = report.modes
    .filter((mode) => report.results.some((result) => result.mode === mode.id))
    .map((mode) => mode.id);
  const fixtures = [...new Set(report.results.map((result) => result.fixture))].map((fixture) => {
    const results = report.results.filter((result) => result.fixture === fixture);
    return { fixture, fill: Math.max(0, ...results.map((result) => result.windowFill)), results };
  });
  fixtures.sort((left, right) => left.fill - right.fill || left.fixture.localeCompare(right.fixture));
  const rows = fixtures.map(({ fixture, fill, results }) => [
    fixture,
    formatFill(fill),
    ...modes.map((mode) => {
      const result = results.find((candidate) => candidate.mode === mode);
      if (result === undefined) return '–';
      return result.shadowCompactions > 0 ? `(${result.shadowCompactions})` : String(result.compactions);
    }),
  ]);
  return { headers: ['fixture', 'fill', ...modes], rows };
}

/** One row per run that measured the Codex wrapper: fixture, mode, largest and median wrapper tokens, constraint mismatches. */
export function wrapperRows(report: EvalReport): readonly (readonly string[])[] {
  return report.results.flatMap((result) =>
    result.wrapper === null
      ? []
      : [
          [
            result.fixture,
            result.mode,
            formatCount(result.wrapper.maxTokens),
            formatCount(result.wrapper.medianTokens),
            String(result.wrapper.constraintMismatches),
          ],
        ],
  );
}

/** The runs that failed their checks or broke a safety invariant, each with its reasons (safety ones marked). */
export function failedRuns(
  report: EvalReport,
): readonly { readonly result: EvalReport['results'][number]; readonly reasons: readonly string[] }[] {
  return report.results
    .filter((result) => !result.passed || result.safetyFailures.length > 0)
    .map((result) => ({
      result,
      reasons: [...result.failures, ...result.safetyFailures.map((failure) => `safety: ${failure}`)],
    }));
}

/** A priced cost with four decimals (`$0.0213`): enough to tell modes apart on the fixtures. */
export function formatUsd(amount: number): string {
  return `$${amount.toFixed(4)}`;
}

/** Two costs with as many decimals (four to eight) as it takes to show that they differ: `$0.34470` and `$0.34464`. */
export function formatUsdApart(first: number, second: number): readonly [string, string] {
  let decimals = 4;
  while (decimals < 8 && first !== second && first.toFixed(decimals) === second.toFixed(decimals)) decimals += 1;
  return [`$${first.toFixed(decimals)}`, `$${second.toFixed(decimals)}`];
}

/** `prices openai (openai:gpt-5.1 capability table, OpenAI prompt cache): $1.25 input · …`. */
export function priceSheetLine(report: EvalReport): string {
  const sheet = report.priceSheet;
  return `prices ${sheet.name} (${sheet.description}): ${describePrices(sheet.prices)}`;
}

/** Aggregates of one mode over every fixture it ran. */
export interface ModeSummary {
  readonly mode: ModeId;
  readonly agent: string;
  readonly fixtures: number;
  readonly passed: number;
  readonly inputTokens: number;
  readonly providerInputTokens: number;
  readonly cachedInputTokens: number;
  /** Total priced cost (US dollars) under the report's price sheet. */
  readonly costUsd: number;
  readonly fullHistoryTokens: number;
  /** Median of the per-fixture reductions over long fixtures; null without long fixtures. */
  readonly medianLongReduction: number | null;
  readonly recallCorrect: number;
  readonly recallTotal: number;
  readonly redundantRereads: number;
  readonly rereadsOfNotedFacts: number;
  readonly workingSetRereads: number;
  /** What the steps of those re-reads cost (US dollars). */
  readonly workingSetRereadUsd: number;
  readonly repeatedFailedInvestigations: number;
  readonly staleCheckpointFacts: number;
  readonly staleHistoryFacts: number;
  readonly safetyFailures: number;
  readonly compactions: number;
  readonly summaryTokens: number;
  readonly providerOverflows: number;
  readonly limitReachedStops: number;
  readonly meanEstimatorError: number | null;
}

function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export function summarizeMode(mode: ModeId, results: readonly FixtureModeMetrics[], agent?: string): ModeSummary {
  const mine = results.filter((result) => result.mode === mode && (agent === undefined || result.agent === agent));
  const sum = (pick: (result: FixtureModeMetrics) => number) => mine.reduce((total, result) => total + pick(result), 0);
  const errors = mine.flatMap((result) => (result.estimatorError === null ? [] : [result.estimatorError.meanAbsolute]));
  return {
    mode,
    agent: agent ?? mine[0]?.agent ?? 'cooperative',
    fixtures: mine.length,
    passed: mine.filter((result) => result.passed).length,
    inputTokens: sum((result) => result.inputTokens),
    providerInputTokens: sum((result) => result.providerInputTokens),
    cachedInputTokens: sum((result) => result.cachedInputTokens),
    costUsd: sum((result) => result.cost.totalUsd),
    fullHistoryTokens: sum((result) => result.fullHistoryTokens),
    medianLongReduction: median(mine.filter((result) => result.long).map((result) => result.inputReduction)),
    recallCorrect: sum((result) => result.recall.correct),
    recallTotal: sum((result) => result.recall.total),
    redundantRereads: sum((result) => result.redundantRereads),
    rereadsOfNotedFacts: sum((result) => result.rereadsOfNotedFacts),
    workingSetRereads: sum((result) => result.workingSetRereads),
    workingSetRereadUsd: sum((result) => result.workingSetRereadCost.usd),
    repeatedFailedInvestigations: sum((result) => result.repeatedFailedInvestigations),
    staleCheckpointFacts: sum((result) => result.staleCheckpointFacts),
    staleHistoryFacts: sum((result) => result.staleHistoryFacts),
    safetyFailures: sum((result) => result.safetyFailures.length),
    compactions: sum((result) => result.compactions),
    summaryTokens: sum((result) => result.summaryTokens),
    providerOverflows: sum((result) => result.providerOverflows),
    limitReachedStops: sum((result) => result.limitReachedStops),
    meanEstimatorError: errors.length === 0 ? null : errors.reduce((total, value) => total + value, 0) / errors.length,
  };
}

/** The summaries of every agent × mode that produced results, in report order (agents first). */
export function modeSummaries(report: EvalReport): ModeSummary[] {
  return report.agents.flatMap((agent) =>
    report.modes
      .filter((mode) => report.results.some((result) => result.mode === mode.id && result.agent === agent))
      .map((mode) => summarizeMode(mode.id, report.results, agent)),
  );
}

/** True when more than one agent played: tables then name the agent of every row. */
export function severalAgents(report: EvalReport): boolean {
  return report.agents.length > 1;
}

/** `fixture × mode`, and ` [agent]` after it when `withAgent` (several agents played). */
export function runLabel(
  run: { readonly fixture: string; readonly mode: string; readonly agent?: string | undefined },
  withAgent: boolean,
): string {
  return `${run.fixture} × ${run.mode}${withAgent ? ` [${run.agent ?? ''}]` : ''}`;
}

/**
 * A gate's result in a report: `pass`, `FAIL` (a release gate failed), `WARN` (an advisory gate
 * failed) or `not evaluated`, with the tone renderers colour it by (neither pass nor fail: `skip`).
 */
export function gateStatusLabel(gate: GateResult): {
  readonly label: 'pass' | 'FAIL' | 'WARN' | 'not evaluated';
  readonly tone: 'pass' | 'fail' | 'skip';
} {
  if (gate.status === 'pass') return { label: 'pass', tone: 'pass' };
  if (gate.status === 'not-evaluated') return { label: 'not evaluated', tone: 'skip' };
  return gate.advisory === true ? { label: 'WARN', tone: 'skip' } : { label: 'FAIL', tone: 'fail' };
}

/** `agent cooperative` or `agents cooperative, no-notes, sloppy`. */
export function agentsLabel(report: EvalReport): string {
  return `${report.agents.length > 1 ? 'agents' : 'agent'} ${report.agents.join(', ')}`;
}

/** One line per agent that played: its name and what it does. */
export function agentLines(report: EvalReport): string[] {
  return report.agents.map((agent) => `${agent}: ${AGENT_DESCRIPTIONS[agent] ?? ''}`);
}

/**
 * Why the agent re-read unchanged files, per run that did: `fixture × mode [agent]: N re-reads (M of
 * noted facts) — never noted 5, suspect 1`.
 */
export function rereadLines(report: EvalReport): string[] {
  const several = severalAgents(report);
  return report.results
    .filter((result) => result.redundantRereads > 0)
    .map((result) => {
      const why = Object.entries(result.rereadReasons)
        .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0))
        .map(([reason, count]) => `${reason} ${count}`)
        .join(', ');
      return `${runLabel(result, several)}: ${result.redundantRereads} re-read(s), ${result.rereadsOfNotedFacts} of noted facts — ${why}`;
    });
}

/**
 * The runs that re-read text they had seen and still needed, with what those steps cost:
 * `fixture × mode [agent]: 3 working-set re-read(s), 3 step(s) of 41,200 input tokens, $0.0312`.
 */
export function workingSetLines(report: EvalReport): string[] {
  const several = severalAgents(report);
  return report.results
    .filter((result) => result.workingSetRereads > 0)
    .map((result) => {
      const cost = result.workingSetRereadCost;
      return `${runLabel(result, several)}: ${result.workingSetRereads} working-set re-read(s), ${cost.requests} step(s) of ${formatCount(cost.inputTokens)} input tokens, ${formatUsd(cost.usd)}`;
    });
}

type Column<T> = { readonly title: string; readonly value: (row: T) => string };

/** {@link MODE_COLUMNS}, with the agent first when several agents played. */
export function modeColumns(report: EvalReport): readonly Column<ModeSummary>[] {
  return severalAgents(report)
    ? [{ title: 'agent', value: (summary) => summary.agent }, ...MODE_COLUMNS]
    : MODE_COLUMNS;
}

/** {@link RESULT_COLUMNS}, with the agent after the mode when several agents played. */
export function resultColumns(report: EvalReport): readonly Column<FixtureModeMetrics>[] {
  if (!severalAgents(report)) return RESULT_COLUMNS;
  const [fixture, mode, ...rest] = RESULT_COLUMNS;
  return [
    fixture as Column<FixtureModeMetrics>,
    mode as Column<FixtureModeMetrics>,
    { title: 'agent', value: (result) => result.agent },
    ...rest,
  ];
}

/** How many leading columns hold names (left-aligned) rather than numbers. */
export function nameColumns(report: EvalReport, table: 'modes' | 'results' | 'gates'): number {
  return (table === 'modes' ? 1 : 2) + (severalAgents(report) ? 1 : 0);
}

/** Columns of the per-mode table, shared by the terminal and Markdown renderers. */
export const MODE_COLUMNS: readonly { readonly title: string; readonly value: (summary: ModeSummary) => string }[] = [
  { title: 'mode', value: (summary) => summary.mode },
  { title: 'pass', value: (summary) => `${summary.passed}/${summary.fixtures}` },
  { title: 'input tokens', value: (summary) => formatCount(summary.inputTokens) },
  {
    title: 'cached',
    value: (summary) =>
      summary.providerInputTokens === 0 ? '–' : formatPercent(summary.cachedInputTokens / summary.providerInputTokens),
  },
  { title: 'cost', value: (summary) => formatUsd(summary.costUsd) },
  {
    title: 'reduction (long, median)',
    value: (summary) => (summary.medianLongReduction === null ? '–' : formatPercent(summary.medianLongReduction)),
  },
  {
    title: 'recall',
    value: (summary) => (summary.recallTotal === 0 ? '–' : `${summary.recallCorrect}/${summary.recallTotal}`),
  },
  { title: 're-reads (noted)', value: (summary) => `${summary.redundantRereads} (${summary.rereadsOfNotedFacts})` },
  {
    title: 'ws re-reads (cost)',
    value: (summary) =>
      summary.workingSetRereads === 0
        ? '0'
        : `${summary.workingSetRereads} (${formatUsd(summary.workingSetRereadUsd)})`,
  },
  { title: 'repeated failures', value: (summary) => String(summary.repeatedFailedInvestigations) },
  {
    title: 'stale facts (ckpt/hist)',
    value: (summary) => `${summary.staleCheckpointFacts}/${summary.staleHistoryFacts}`,
  },
  { title: 'safety', value: (summary) => String(summary.safetyFailures) },
  { title: 'compactions', value: (summary) => String(summary.compactions) },
  { title: 'summary tokens', value: (summary) => formatCount(summary.summaryTokens) },
  { title: 'overflows', value: (summary) => String(summary.providerOverflows) },
  { title: 'limit stops', value: (summary) => String(summary.limitReachedStops) },
  {
    title: 'est. error',
    value: (summary) => (summary.meanEstimatorError === null ? '–' : formatPercent(summary.meanEstimatorError)),
  },
];

/** Columns of the fixture × mode table. */
export const RESULT_COLUMNS: readonly {
  readonly title: string;
  readonly value: (result: FixtureModeMetrics) => string;
}[] = [
  { title: 'fixture', value: (result) => result.fixture },
  { title: 'mode', value: (result) => result.mode },
  { title: 'fill', value: (result) => formatFill(result.windowFill) },
  { title: 'pass', value: (result) => (result.passed ? 'yes' : 'NO') },
  { title: 'input', value: (result) => formatCount(result.inputTokens) },
  { title: 'vs full', value: (result) => formatPercent(result.inputReduction) },
  {
    title: 'cached',
    value: (result) => (result.providerInputTokens === 0 ? '–' : formatPercent(result.cacheHitRatio)),
  },
  { title: 'cost', value: (result) => formatUsd(result.cost.totalUsd) },
  { title: 'max req', value: (result) => formatCount(result.maxRequestTokens) },
  { title: 'reqs', value: (result) => String(result.requests) },
  {
    title: 'compact',
    value: (result) => (result.shadowCompactions > 0 ? `(${result.shadowCompactions})` : String(result.compactions)),
  },
  {
    title: 'reclaimed/c',
    value: (result) => (result.compactions === 0 ? '–' : formatCount(result.reclaimedTokensPerCompaction)),
  },
  { title: 'summary', value: (result) => formatCount(result.summaryTokens) },
  {
    title: 'recall',
    value: (result) => (result.recall.total === 0 ? '–' : `${result.recall.correct}/${result.recall.total}`),
  },
  {
    title: 're-reads',
    value: (result) =>
      result.rereadsOfNotedFacts === 0
        ? String(result.redundantRereads)
        : `${result.redundantRereads} (${result.rereadsOfNotedFacts})`,
  },
  { title: 'ws re-reads', value: (result) => String(result.workingSetRereads) },
  {
    title: 'ws cost',
    value: (result) => (result.workingSetRereads === 0 ? '–' : formatUsd(result.workingSetRereadCost.usd)),
  },
  {
    title: 'quotes',
    value: (result) => (result.passages.total === 0 ? '–' : `${result.passages.correct}/${result.passages.total}`),
  },
  {
    title: 'kept 1st',
    value: (result) => (result.keptVerbatimTokens === null ? '–' : formatCount(result.keptVerbatimTokens)),
  },
  { title: 'repeats', value: (result) => String(result.repeatedFailedInvestigations) },
  { title: 'stale', value: (result) => `${result.staleCheckpointFacts}/${result.staleHistoryFacts}` },
  { title: 'safety', value: (result) => String(result.safetyFailures.length) },
  { title: 'overflow', value: (result) => String(result.providerOverflows) },
  { title: 'recover', value: (result) => String(result.overflowRecoveries) },
  { title: 'no-prog', value: (result) => String(result.noProgressStops) },
  { title: 'c-fail', value: (result) => String(result.compactionFailures) },
  { title: 'proj', value: (result) => String(result.toolOutputProjections) },
  { title: 'limit', value: (result) => String(result.limitReachedStops) },
  { title: 'dup in', value: (result) => String(result.duplicateInputs) },
  {
    title: 'est err',
    value: (result) => (result.estimatorError === null ? '–' : formatPercent(result.estimatorError.meanAbsolute)),
  },
];
