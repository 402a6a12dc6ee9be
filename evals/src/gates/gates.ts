import { readFile } from 'node:fs/promises';
import { InvalidInputError } from '@forge/core';
import { z } from 'zod';
import type { FixtureModeMetrics } from '../metrics/metrics.js';
import type { ModeId, ModeRunner } from '../modes/types.js';
import { formatPercent, formatUsdApart } from '../report/format.js';

/**
 * Release gates. Defaults are stricter than the seed plan's (30 % reduction, 95 % recall, 5 points
 * of pass-rate regression allowed): a checkpoint must not lose anything the fixtures probe.
 */
/** The compacting mode Forge ships as its default (config `context.mode` compact, strategy forge-state). */
export const DEFAULT_GATED_MODES = ['compact:forge-state'] as const;

export const gatesConfigSchema = z.strictObject({
  /** Median input-token reduction against sending the whole transcript, over long fixtures, per compacting mode. */
  minInputReduction: z.number().min(0).max(1).default(0.5),
  /** Share of probes of seeded constraints answered right, per compacting mode. */
  minRecall: z.number().min(0).max(1).default(1),
  maxRepeatedFailedInvestigations: z.number().int().min(0).default(0),
  /** Re-reads of an unchanged file the agent had noted a fact from (memory it asked for that did not reach it). */
  maxRedundantRereads: z.number().int().min(0).default(0),
  /**
   * Working-set re-reads (re-reads of verbatim text the agent had seen and still needed) allowed
   * in a run that sent the whole history every time (no compaction, no projection), per Forge mode.
   */
  maxWorkingSetRereadsWhileWhole: z.number().int().min(0).default(0),
  /** Stale facts taken from a checkpoint as VALID (SUSPECT facts acted upon). */
  maxStaleCheckpointFacts: z.number().int().min(0).default(0),
  /** Safety-invariant failures, over every Forge mode (baselines are not gated). */
  maxSafetyFailures: z.number().int().min(0).default(0),
  /**
   * Percentage points a compacting mode's pass rate may fall below sending the whole history
   * (`baseline:full-history`), on the fixtures where the whole history fits the window.
   */
  maxPassRateRegressionVsFullHistory: z.number().min(0).max(100).default(0),
  /**
   * Compacting modes the candidate gates apply to; the safety gate always covers every Forge mode.
   * Default: the strategy Forge ships as its default, so `forge eval` fails when the default
   * regresses. Pass `"candidates": ["*"]` to gate every compacting strategy.
   */
  candidates: z.array(z.string().min(1)).default([...DEFAULT_GATED_MODES]),
  /**
   * Whether the priced gates (`cost-vs-full-history`, `cost-vs-baselines`) block a release, as
   * every other gate does (the default), for the agents that do what the system prompt asks (see
   * {@link COST_GATED_AGENTS}). `false` reports them as advisory for every agent: printed, never
   * hidden, but a failure does not fail `forge eval`.
   */
  enforceCostGates: z.boolean().default(true),
});

export type GatesConfig = z.output<typeof gatesConfigSchema>;

/**
 * The agents the priced gates block for: the cooperative policy agent and a live model. What a
 * session costs depends on the model's habits, and `no-notes` and `sloppy` skip, on purpose, the
 * notes and checkpoint requests the system prompt asks for; their priced gates are advisory, while
 * every other gate holds them as it holds the rest.
 */
export const COST_GATED_AGENTS: ReadonlySet<string> = new Set(['cooperative', 'live']);

export const DEFAULT_GATES: GatesConfig = gatesConfigSchema.parse({});

/** Reads gate settings from a JSON file; missing fields keep their defaults. */
export async function loadGatesConfig(file: string): Promise<GatesConfig> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new InvalidInputError({ message: `Cannot read the gates file ${file}: ${(error as Error).message}.` });
  }
  const parsed = gatesConfigSchema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((issue) => `${issue.path.join('.') || '(file)'}: ${issue.message}`)
      .join('; ');
    throw new InvalidInputError({
      message: `The gates file ${file} is not valid: ${issues}. See docs/evals.md for the fields.`,
    });
  }
  return parsed.data;
}

export type GateStatus = 'pass' | 'fail' | 'not-evaluated';

export interface GateResult {
  readonly gate: string;
  readonly mode: ModeId;
  /** The agent whose runs were measured. */
  readonly agent: string;
  readonly status: GateStatus;
  /** What was measured, in words (`72 %`, `3`); empty when not evaluated. */
  readonly actual: string;
  readonly threshold: string;
  /** Why a gate was not evaluated, or which fixtures failed it. */
  readonly detail: string;
  /** Reported but not a release gate (`enforceCostGates: false`, or an agent outside {@link COST_GATED_AGENTS}): a failure does not fail `forge eval`. */
  readonly advisory?: true;
}

/** The gates whose failure fails `forge eval`. */
export function blockingFailures(gates: readonly GateResult[]): GateResult[] {
  return gates.filter((gate) => gate.status === 'fail' && gate.advisory !== true);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function passRate(results: readonly FixtureModeMetrics[]): number {
  return results.length === 0 ? 0 : results.filter((result) => result.passed).length / results.length;
}

type GateSubject = Pick<GateResult, 'gate' | 'mode' | 'agent'>;

function countGate(
  subject: GateSubject,
  results: readonly FixtureModeMetrics[],
  pick: (result: FixtureModeMetrics) => number,
  maximum: number,
): GateResult {
  const total = results.reduce((sum, result) => sum + pick(result), 0);
  const offenders = results.filter((result) => pick(result) > 0).map((result) => `${result.fixture} (${pick(result)})`);
  return {
    ...subject,
    status: total <= maximum ? 'pass' : 'fail',
    actual: String(total),
    threshold: `≤ ${maximum}`,
    detail: offenders.join(', '),
  };
}

/**
 * Fixtures whose whole history fits the window (peak `windowFill` ≤ 1 over every run of the
 * fixture, and no injected provider overflow saying otherwise) and that the full-history baseline
 * ran: where sending everything is possible, Forge must do at least as well as that.
 */
function fittingFixtures(results: readonly FixtureModeMetrics[]): Map<string, FixtureModeMetrics> {
  const peak = new Map<string, number>();
  for (const result of results) peak.set(result.fixture, Math.max(peak.get(result.fixture) ?? 0, result.windowFill));
  const fitting = new Map<string, FixtureModeMetrics>();
  for (const result of results) {
    if (
      result.mode === 'baseline:full-history' &&
      result.injectedOverflows === 0 &&
      (peak.get(result.fixture) ?? Infinity) <= 1
    )
      fitting.set(result.fixture, result);
  }
  return fitting;
}

/** What a run did worse than the full-history run of the same fixture: recall, re-reads, repeated failures, pass. */
function worseThan(result: FixtureModeMetrics, full: FixtureModeMetrics): string[] {
  const worse: string[] = [];
  if (result.recall.correct < full.recall.correct)
    worse.push(`recall ${result.recall.correct}/${result.recall.total} vs ${full.recall.correct}/${full.recall.total}`);
  if (result.redundantRereads > full.redundantRereads)
    worse.push(`re-reads ${result.redundantRereads} vs ${full.redundantRereads}`);
  if (result.repeatedFailedInvestigations > full.repeatedFailedInvestigations)
    worse.push(`repeated failures ${result.repeatedFailedInvestigations} vs ${full.repeatedFailedInvestigations}`);
  if (full.passed && !result.passed) worse.push('failed where the whole history passes');
  return worse;
}

/**
 * Evaluates the gates, for each agent on its own runs (`agents`: default, every agent that has
 * results, else `cooperative`). Candidate gates (reduction, recall, re-reads of noted facts,
 * repeated investigations, stale facts, pass rate against the full history where it fits) apply
 * to every compacting Forge mode; the safety gate and "no worse than the full history where it
 * fits" to every Forge mode. A gate whose mode did not run, or that has nothing to measure, is
 * `not-evaluated` — never reported as passed.
 */
export function evaluateGates(
  results: readonly FixtureModeMetrics[],
  modes: readonly ModeRunner[],
  config: GatesConfig = DEFAULT_GATES,
  agents: readonly string[] = [...new Set(results.map((result) => result.agent))],
): GateResult[] {
  const played = agents.length === 0 ? ['cooperative'] : agents;
  return played.flatMap((agent) =>
    evaluateAgentGates(
      results.filter((result) => result.agent === agent),
      modes,
      config,
      agent,
    ),
  );
}

function evaluateAgentGates(
  results: readonly FixtureModeMetrics[],
  modes: readonly ModeRunner[],
  config: GatesConfig,
  agent: string,
): GateResult[] {
  const fitting = fittingFixtures(results);
  return modes
    .filter((candidate) => candidate.family === 'forge')
    .flatMap((mode) =>
      modeGates({ mode, agent, mine: results.filter((result) => result.mode === mode.id), results, config, fitting }),
    );
}

/** One Forge mode's gates for one agent: `mine` are its runs, `results` every run of the agent. */
interface ModeGateScope {
  readonly mode: ModeRunner;
  readonly agent: string;
  readonly mine: readonly FixtureModeMetrics[];
  readonly results: readonly FixtureModeMetrics[];
  readonly config: GatesConfig;
  readonly fitting: Map<string, FixtureModeMetrics>;
}

const CANDIDATE_GATES = [
  'input-reduction',
  'recall',
  'repeated-failed-investigations',
  'redundant-rereads',
  'stale-checkpoint-facts',
  'working-set-rereads-vs-baselines',
  'pass-rate-vs-full-history',
  'cost-vs-full-history',
  'cost-vs-baselines',
] as const;

const NO_FITTING_FIXTURE = 'no fixture whose whole history fits was run with baseline:full-history';

function modeGates(scope: ModeGateScope): GateResult[] {
  const { mode, agent, mine, results, config, fitting } = scope;
  if (mine.length === 0) return gatesOfModeNotRun(scope);
  const candidate = mode.compacts && isCandidate(config, mode.id);
  return [
    ...(candidate ? candidateGates(scope) : []),
    ...(candidate
      ? costGates(mode.id, agent, mine, results, fitting).map((gate) =>
          config.enforceCostGates && COST_GATED_AGENTS.has(agent) ? gate : { ...gate, advisory: true as const },
        )
      : []),
    noWorseThanFullHistoryGate(scope),
    workingSetWhileWhole(mode.id, agent, mine, config.maxWorkingSetRereadsWhileWhole),
    countGate(
      { gate: 'safety', mode: mode.id, agent },
      mine,
      (result) => result.safetyFailures.length,
      config.maxSafetyFailures,
    ),
  ];
}

function notEvaluated({ mode, agent }: ModeGateScope, gate: string, threshold: string, detail: string): GateResult {
  return { gate, mode: mode.id, agent, status: 'not-evaluated', actual: '', threshold, detail };
}

function gatesOfModeNotRun(scope: ModeGateScope): GateResult[] {
  const { mode, config } = scope;
  const reason = mode.unavailable ?? 'the mode was not run';
  const candidate = mode.compacts && isCandidate(config, mode.id);
  return [
    ...(candidate ? CANDIDATE_GATES.map((gate) => notEvaluated(scope, gate, '', reason)) : []),
    notEvaluated(scope, 'no-worse-than-full-history', 'equal or better where the whole history fits', reason),
    notEvaluated(scope, 'working-set-rereads-while-whole', `≤ ${config.maxWorkingSetRereadsWhileWhole}`, reason),
    notEvaluated(scope, 'safety', `≤ ${config.maxSafetyFailures}`, reason),
  ];
}

function candidateGates(scope: ModeGateScope): GateResult[] {
  const { mode, agent, mine, results, config } = scope;
  const subject = (gate: string): GateSubject => ({ gate, mode: mode.id, agent });
  return [
    inputReductionGate(scope),
    recallGate(scope),
    countGate(
      subject('repeated-failed-investigations'),
      mine,
      (result) => result.repeatedFailedInvestigations,
      config.maxRepeatedFailedInvestigations,
    ),
    // Re-reading a file the agent never asked Forge to remember is its own choice; the reports say how often and why.
    countGate(subject('redundant-rereads'), mine, (result) => result.rereadsOfNotedFacts, config.maxRedundantRereads),
    countGate(
      subject('stale-checkpoint-facts'),
      mine,
      (result) => result.staleCheckpointFacts,
      config.maxStaleCheckpointFacts,
    ),
    workingSetVersusBaselines(mode.id, agent, mine, results),
    passRateVersusFullHistoryGate(scope),
  ];
}

function inputReductionGate(scope: ModeGateScope): GateResult {
  const { mode, agent, mine, config } = scope;
  const long = mine.filter((result) => result.long);
  if (long.length === 0)
    return notEvaluated(
      scope,
      'input-reduction',
      `≥ ${formatPercent(config.minInputReduction)}`,
      'no long fixture was run',
    );
  const value = median(long.map((result) => result.inputReduction));
  const below = long
    .filter((result) => result.inputReduction < config.minInputReduction)
    .map((result) => `${result.fixture} ${formatPercent(result.inputReduction)}`);
  return {
    gate: 'input-reduction',
    mode: mode.id,
    agent,
    status: value >= config.minInputReduction ? 'pass' : 'fail',
    actual: formatPercent(value),
    threshold: `≥ ${formatPercent(config.minInputReduction)} (median, long fixtures)`,
    detail: below.join(', '),
  };
}

function recallGate(scope: ModeGateScope): GateResult {
  const { mode, agent, mine, config } = scope;
  const correct = mine.reduce((sum, result) => sum + result.recall.correct, 0);
  const total = mine.reduce((sum, result) => sum + result.recall.total, 0);
  if (total === 0)
    return notEvaluated(
      scope,
      'recall',
      `≥ ${formatPercent(config.minRecall)}`,
      'no fixture probes a seeded constraint',
    );
  const missed = mine
    .filter((result) => result.recall.correct < result.recall.total)
    .map((result) => `${result.fixture} ${result.recall.correct}/${result.recall.total}`);
  return {
    gate: 'recall',
    mode: mode.id,
    agent,
    status: correct / total >= config.minRecall ? 'pass' : 'fail',
    actual: `${formatPercent(correct / total)} (${correct}/${total})`,
    threshold: `≥ ${formatPercent(config.minRecall)}`,
    detail: missed.join(', '),
  };
}

function passRateVersusFullHistoryGate(scope: ModeGateScope): GateResult {
  const { mode, agent, mine, config, fitting } = scope;
  const sameFixtures = mine.filter((result) => fitting.has(result.fixture));
  const threshold = `≥ full history − ${config.maxPassRateRegressionVsFullHistory} pt (fixtures where it fits)`;
  if (sameFixtures.length === 0) return notEvaluated(scope, 'pass-rate-vs-full-history', threshold, NO_FITTING_FIXTURE);
  const own = passRate(sameFixtures);
  const reference = passRate(sameFixtures.map((result) => fitting.get(result.fixture) as FixtureModeMetrics));
  const regression = (reference - own) * 100;
  return {
    gate: 'pass-rate-vs-full-history',
    mode: mode.id,
    agent,
    status: regression <= config.maxPassRateRegressionVsFullHistory ? 'pass' : 'fail',
    actual: `${formatPercent(own)} vs full history ${formatPercent(reference)}`,
    threshold,
    detail: sameFixtures
      .filter((result) => !result.passed && fitting.get(result.fixture)?.passed === true)
      .map((result) => result.fixture)
      .join(', '),
  };
}

function noWorseThanFullHistoryGate(scope: ModeGateScope): GateResult {
  const { mode, agent, mine, fitting } = scope;
  const comparable = mine.filter((result) => fitting.has(result.fixture));
  if (comparable.length === 0)
    return notEvaluated(
      scope,
      'no-worse-than-full-history',
      'equal or better where the whole history fits',
      NO_FITTING_FIXTURE,
    );
  const offenders = comparable.flatMap((result) => {
    const worse = worseThan(result, fitting.get(result.fixture) as FixtureModeMetrics);
    return worse.length === 0 ? [] : [`${result.fixture}: ${worse.join(', ')}`];
  });
  return {
    gate: 'no-worse-than-full-history',
    mode: mode.id,
    agent,
    status: offenders.length === 0 ? 'pass' : 'fail',
    actual: `${comparable.length - offenders.length}/${comparable.length} fixtures`,
    threshold: 'recall, re-reads, repeated failures and pass equal or better where the whole history fits',
    detail: offenders.join('; '),
  };
}

/** True when every request of the run sent the whole stored history verbatim: nothing compacted, projected or dropped. */
export function sentWholeHistory(result: FixtureModeMetrics): boolean {
  return result.compactions === 0 && result.toolOutputProjections === 0 && result.keptVerbatimTokens === null;
}

/** While the whole history is sent, the text the agent saw is still in view: it never has to read it again. */
function workingSetWhileWhole(
  mode: ModeId,
  agent: string,
  mine: readonly FixtureModeMetrics[],
  maximum: number,
): GateResult {
  const whole = mine.filter(sentWholeHistory);
  const threshold = `≤ ${maximum} (runs that sent the whole history)`;
  if (whole.length === 0)
    return {
      gate: 'working-set-rereads-while-whole',
      mode,
      agent,
      status: 'not-evaluated',
      actual: '',
      threshold,
      detail: 'every run compacted or projected',
    };
  return {
    ...countGate(
      { gate: 'working-set-rereads-while-whole', mode, agent },
      whole,
      (result) => result.workingSetRereads,
      maximum,
    ),
    threshold,
  };
}

/**
 * On long fixtures the candidate makes no more working-set re-reads than any baseline that played
 * the fixture to the end (no turn stopped at the limit, no request refused as too long): a
 * baseline that stopped early skipped the steps that would have needed the text.
 */
function workingSetVersusBaselines(
  mode: ModeId,
  agent: string,
  mine: readonly FixtureModeMetrics[],
  results: readonly FixtureModeMetrics[],
): GateResult {
  const threshold = '≤ every baseline that played the fixture to the end (long fixtures)';
  const baselinesOf = (fixture: string) =>
    results.filter(
      (result) =>
        result.fixture === fixture &&
        result.mode.startsWith('baseline:') &&
        result.limitReachedStops === 0 &&
        result.providerOverflows === 0,
    );
  const compared = mine.filter((result) => result.long && baselinesOf(result.fixture).length > 0);
  if (compared.length === 0)
    return {
      gate: 'working-set-rereads-vs-baselines',
      mode,
      agent,
      status: 'not-evaluated',
      actual: '',
      threshold,
      detail: 'no baseline played a long fixture that was run to the end',
    };
  const fewer = compared.map((result) => ({
    result,
    fewer: baselinesOf(result.fixture).filter((baseline) => result.workingSetRereads > baseline.workingSetRereads),
  }));
  const failing = fewer.filter((row) => row.fewer.length > 0).length;
  const offenders = fewer.flatMap(({ result, fewer: baselines }) =>
    baselines.map(
      (baseline) => `${result.fixture} ${result.workingSetRereads} vs ${baseline.mode} ${baseline.workingSetRereads}`,
    ),
  );
  return {
    gate: 'working-set-rereads-vs-baselines',
    mode,
    agent,
    status: offenders.length === 0 ? 'pass' : 'fail',
    actual: `${compared.length - failing}/${compared.length} long fixtures`,
    threshold,
    detail: offenders.join('; '),
  };
}

function isCandidate(config: GatesConfig, mode: ModeId): boolean {
  return config.candidates.includes('*') || config.candidates.includes(mode);
}

/** Rounding of sums of many small prices must not fail a gate: a millionth of a cent. */
const COST_TOLERANCE_USD = 1e-8;

/** `$0.0600 vs $0.0500`, `$0.34470 vs full history $0.34464`: enough decimals that a failing pair never reads as equal. */
function usdVersus(own: number, label: string, other: number): string {
  const [mine, theirs] = formatUsdApart(own, other);
  return `${mine} vs ${label === '' ? '' : `${label} `}${theirs}`;
}

/**
 * The priced gates: where the whole history fits, the mode costs no more than sending it
 * (`baseline:full-history`); on long fixtures, no more than any baseline that passed the fixture
 * (one that fails it — the whole history refused by the provider, say — is not a cheaper way to do
 * the task: its refused requests simply cost nothing). Costs are the run's price sheet applied to the simulated provider's usage, prompt cache included.
 */
function costGates(
  mode: ModeId,
  agent: string,
  mine: readonly FixtureModeMetrics[],
  results: readonly FixtureModeMetrics[],
  fitting: ReadonlyMap<string, FixtureModeMetrics>,
): GateResult[] {
  const sheet = mine[0]?.cost.sheet ?? 'openai';
  const gates: GateResult[] = [];
  const fits = mine.filter((result) => fitting.has(result.fixture));
  const fullThreshold = `≤ baseline:full-history's cost (${sheet} prices, fixtures where the whole history fits)`;
  if (fits.length === 0)
    gates.push({
      gate: 'cost-vs-full-history',
      mode,
      agent,
      status: 'not-evaluated',
      actual: '',
      threshold: fullThreshold,
      detail: 'no fixture whose whole history fits was run with baseline:full-history',
    });
  else {
    const over = fits.filter(
      (result) =>
        result.cost.totalUsd > (fitting.get(result.fixture) as FixtureModeMetrics).cost.totalUsd + COST_TOLERANCE_USD,
    );
    const own = fits.reduce((total, result) => total + result.cost.totalUsd, 0);
    const reference = fits.reduce(
      (total, result) => total + (fitting.get(result.fixture) as FixtureModeMetrics).cost.totalUsd,
      0,
    );
    gates.push({
      gate: 'cost-vs-full-history',
      mode,
      agent,
      status: over.length === 0 ? 'pass' : 'fail',
      actual: `${usdVersus(own, 'full history', reference)} over ${fits.length} fixture(s)`,
      threshold: fullThreshold,
      detail: over
        .map(
          (result) =>
            `${result.fixture} ${usdVersus(result.cost.totalUsd, '', (fitting.get(result.fixture) as FixtureModeMetrics).cost.totalUsd)}`,
        )
        .join(', '),
    });
  }
  const long = mine.filter((result) => result.long);
  const baselineThreshold = `≤ the cost of every baseline that passes (${sheet} prices, long fixtures)`;
  const baselinesOf = (fixture: string) =>
    results.filter((result) => result.fixture === fixture && result.mode.startsWith('baseline:') && result.passed);
  const compared = long.filter((result) => baselinesOf(result.fixture).length > 0);
  if (compared.length === 0)
    gates.push({
      gate: 'cost-vs-baselines',
      mode,
      agent,
      status: 'not-evaluated',
      actual: '',
      threshold: baselineThreshold,
      detail: 'no baseline passed a long fixture that was run',
    });
  else {
    const costlier = compared.map((result) => ({
      result,
      cheaper: baselinesOf(result.fixture).filter(
        (baseline) => result.cost.totalUsd > baseline.cost.totalUsd + COST_TOLERANCE_USD,
      ),
    }));
    const failing = costlier.filter(({ cheaper }) => cheaper.length > 0).length;
    const offenders = costlier.flatMap(({ result, cheaper }) =>
      cheaper.map(
        (baseline) => `${result.fixture} ${usdVersus(result.cost.totalUsd, baseline.mode, baseline.cost.totalUsd)}`,
      ),
    );
    gates.push({
      gate: 'cost-vs-baselines',
      mode,
      agent,
      status: offenders.length === 0 ? 'pass' : 'fail',
      actual: `${compared.length - failing}/${compared.length} long fixtures`,
      threshold: baselineThreshold,
      detail: offenders.join('; '),
    });
  }
  return gates;
}
