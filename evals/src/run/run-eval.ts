import type { ModelAdapter } from '@forge/core';
import { expandFixture, type ExpandedFixture } from '../fixture/expand.js';
import type { LoadedFixture } from '../fixture/load.js';
import { blockingFailures, DEFAULT_GATES, evaluateGates, type GateResult, type GatesConfig } from '../gates/gates.js';
import { computeMetrics, type FixtureModeMetrics } from '../metrics/metrics.js';
import type { ModeId, ModeRunner } from '../modes/types.js';
import { DEFAULT_AGENT, type AgentName } from '../policy/habits.js';
import { DEFAULT_PRICE_SHEET, type EvalPriceSheet } from '../pricing/eval-prices.js';
import { runFixture } from './run-fixture.js';

/** Where the run is: reported before each fixture × mode and each turn. */
export interface EvalProgress {
  /** `started` and `finished` once per fixture × mode, `turn` before each of its turns. */
  readonly event: 'started' | 'turn' | 'finished';
  /** Fixture × mode runs finished so far, and in all. */
  readonly done: number;
  readonly total: number;
  readonly fixture: string;
  readonly mode: ModeId;
  /** The agent playing, when more than one plays in the run. */
  readonly agent?: string;
  readonly turn: number;
  readonly turns: number;
}

export interface RunEvalOptions {
  readonly fixtures: readonly LoadedFixture[];
  readonly modes: readonly ModeRunner[];
  /** The policy agents that play, each every fixture in every mode (default: `cooperative`). Ignored with `createModel`. */
  readonly agents?: readonly AgentName[];
  readonly gates?: GatesConfig;
  /** Creates the agent's model for a fixture; default: the policy model. Live runs pass a real adapter. */
  readonly createModel?: (fixture: ExpandedFixture) => Promise<ModelAdapter>;
  readonly onProgress?: (progress: EvalProgress) => void;
  /** What was run, for the report header (`suite smoke`, `fixtures ./my-fixtures`). */
  readonly source: string;
  /** `policy` for the offline policy model, else the live model's id. */
  readonly modelLabel?: string;
  /** Fixture × mode runs at a time (default 8; live runs should use 1 to respect rate limits). */
  readonly concurrency?: number;
  /** The prices usage is charged at, and the simulated provider's cache rules (default `openai`). */
  readonly priceSheet?: EvalPriceSheet;
}

const DEFAULT_CONCURRENCY = 8;

/** A fixture × mode that could not run at all (not a failed task: a harness or setup error). */
export interface EvalRunError {
  readonly fixture: string;
  readonly mode: ModeId;
  readonly agent: string;
  readonly message: string;
}

export interface EvalReport {
  readonly reportVersion: 2;
  readonly source: string;
  readonly model: string;
  /** Who played: the policy agents (`cooperative`, `no-notes`, `sloppy`), or `live` for a real model. */
  readonly agents: readonly string[];
  readonly startedAt: string;
  readonly durationMs: number;
  readonly fixtures: readonly {
    readonly id: string;
    readonly title: string;
    readonly long: boolean;
    readonly turns: number;
  }[];
  readonly modes: readonly {
    readonly id: ModeId;
    readonly label: string;
    readonly family: 'forge' | 'baseline';
    readonly implementation: string;
    readonly unavailable: string | null;
  }[];
  readonly results: readonly FixtureModeMetrics[];
  readonly errors: readonly EvalRunError[];
  readonly gates: readonly GateResult[];
  readonly gatesConfig: GatesConfig;
  /** The price sheet every cost in the report is computed with. */
  readonly priceSheet: EvalPriceSheet;
}

/** Runs every fixture in every available mode, computes the metrics and evaluates the gates. */
export async function runEval(options: RunEvalOptions): Promise<EvalReport> {
  const started = performance.now();
  const priceSheet = options.priceSheet ?? DEFAULT_PRICE_SHEET;
  const startedAt = new Date().toISOString();
  const expanded = options.fixtures.map((item) => expandFixture(item.fixture));
  const runnable = options.modes.filter((mode) => mode.unavailable === undefined);
  const agents: readonly (AgentName | undefined)[] =
    options.createModel !== undefined ? [undefined] : (options.agents ?? [DEFAULT_AGENT]);
  const jobs = planJobs(agents, expanded, runnable);
  const outcomes = await runJobs(jobs, { options, priceSheet, total: jobs.length, several: agents.length > 1 });
  const agentNames = agents.map((agent) => agent ?? 'live');
  const ordering = { agentNames, expanded, runnable };
  const results = groupByAgent(
    outcomes.flatMap((outcome) => (outcome !== undefined && 'metrics' in outcome ? [outcome.metrics] : [])),
    ordering,
  );
  const errors = groupByAgent(
    outcomes.flatMap((outcome) => (outcome !== undefined && 'error' in outcome ? [outcome.error] : [])),
    ordering,
  );
  const gatesConfig = options.gates ?? DEFAULT_GATES;
  return {
    reportVersion: 2,
    source: options.source,
    model: options.modelLabel ?? 'policy',
    agents: agentNames,
    startedAt,
    durationMs: Math.round(performance.now() - started),
    fixtures: expanded.map((fixture) => ({
      id: fixture.fixture.id,
      title: fixture.fixture.title,
      long: fixture.fixture.long,
      turns: fixture.turns.length,
    })),
    modes: options.modes.map((mode) => ({
      id: mode.id,
      label: mode.label,
      family: mode.family,
      implementation: mode.implementation,
      unavailable: mode.unavailable ?? null,
    })),
    results,
    errors,
    gates: evaluateGates(results, options.modes, gatesConfig, agentNames),
    gatesConfig,
    priceSheet,
  };
}

interface EvalJob {
  readonly fixture: ExpandedFixture;
  readonly mode: ModeRunner;
  readonly agent: AgentName | undefined;
}

type JobOutcome = { readonly metrics: FixtureModeMetrics } | { readonly error: EvalRunError };

interface JobContext {
  readonly options: RunEvalOptions;
  readonly priceSheet: EvalPriceSheet;
  readonly total: number;
  readonly several: boolean;
}

function planJobs(
  agents: readonly (AgentName | undefined)[],
  expanded: readonly ExpandedFixture[],
  runnable: readonly ModeRunner[],
): EvalJob[] {
  // Without the context tools the agents' habits never show: such a mode runs once, for the first agent, and stands for every agent.
  return agents.flatMap((agent, index) =>
    expanded.flatMap((fixture) =>
      runnable.filter((mode) => index === 0 || mode.offersContextTools).map((mode) => ({ fixture, mode, agent })),
    ),
  );
}

/** Sessions wait mostly on durable writes, so a few run side by side; outcomes keep job order. */
async function runJobs(jobs: readonly EvalJob[], context: JobContext): Promise<(JobOutcome | undefined)[]> {
  const outcomes: (JobOutcome | undefined)[] = Array.from({ length: jobs.length }, () => undefined);
  let done = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const index = next;
      next += 1;
      const job = jobs[index] as EvalJob;
      const report = (event: EvalProgress['event'], turn: number) =>
        reportProgress(job, context, { event, done, turn });
      report('started', 0);
      outcomes[index] = await runJob(job, context, (turn) => report('turn', turn));
      done += 1;
      report('finished', job.fixture.turns.length - 1);
    }
  };
  const concurrency = Math.max(1, Math.min(context.options.concurrency ?? DEFAULT_CONCURRENCY, jobs.length));
  await Promise.all(Array.from({ length: concurrency }, () => worker()));
  return outcomes;
}

function reportProgress(
  { fixture, mode, agent }: EvalJob,
  { options, total, several }: JobContext,
  { event, done, turn }: Pick<EvalProgress, 'event' | 'done' | 'turn'>,
): void {
  options.onProgress?.({
    event,
    done,
    total,
    fixture: fixture.fixture.id,
    mode: mode.id,
    ...(several && agent !== undefined ? { agent } : {}),
    turn,
    turns: fixture.turns.length,
  });
}

async function runJob(
  { fixture, mode, agent }: EvalJob,
  { options, priceSheet }: JobContext,
  onTurn: (turn: number) => void,
): Promise<JobOutcome> {
  try {
    const model = options.createModel === undefined ? undefined : await options.createModel(fixture);
    const run = await runFixture({
      fixture,
      mode,
      priceSheet,
      ...(model === undefined ? {} : { model }),
      ...(agent === undefined ? {} : { agent }),
      onTurn,
    });
    return { metrics: computeMetrics(run) };
  } catch (error) {
    return {
      error: {
        fixture: fixture.fixture.id,
        mode: mode.id,
        agent: agent ?? 'live',
        message: error instanceof Error ? error.message : String(error),
      },
    };
  }
}

interface AgentOrdering {
  readonly agentNames: readonly string[];
  readonly expanded: readonly ExpandedFixture[];
  readonly runnable: readonly ModeRunner[];
}

/**
 * Every agent's items in fixture × mode order; a mode without context tools ran only for the
 * first agent and is copied to the others.
 */
function groupByAgent<T extends { readonly agent: string; readonly fixture: string; readonly mode: ModeId }>(
  items: readonly T[],
  { agentNames, expanded, runnable }: AgentOrdering,
): T[] {
  const first = agentNames[0];
  const offers = (mode: ModeId) => runnable.some((runner) => runner.id === mode && runner.offersContextTools);
  const order = (fixture: string, mode: ModeId) =>
    expanded.findIndex((item) => item.fixture.id === fixture) * runnable.length +
    runnable.findIndex((runner) => runner.id === mode);
  const forAgent = (agent: string): T[] =>
    items
      .filter((item) => item.agent === agent || (agent !== first && item.agent === first && !offers(item.mode)))
      .map((item) => ({ ...item, agent }))
      .sort((left, right) => order(left.fixture, left.mode) - order(right.fixture, right.mode));
  return agentNames.flatMap(forAgent);
}

/** True when no gate failed and every fixture × mode ran. */
export function reportPassed(report: EvalReport): boolean {
  return report.errors.length === 0 && blockingFailures(report.gates).length === 0;
}
