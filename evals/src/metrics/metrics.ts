import type { PriceSheet } from '@forge/core';
import { cacheHitRatio, priceUsage } from '@forge/core/pricing';
import type { ExpandedFixture } from '../fixture/expand.js';
import type { RecordedRequest } from '../modes/model-wrappers.js';
import type { ModeId } from '../modes/types.js';
import type { FixtureRun, TurnRun } from '../run/run-fixture.js';
import {
  duplicateInputs,
  redundantRereadCalls,
  repeatedFailedInvestigations,
  workingSetRereadCalls,
  type RedundantReread,
} from './transcript-metrics.js';

/** Every metric of one fixture run in one mode. Token counts are Forge's estimates unless named `provider`. */
export interface FixtureModeMetrics {
  readonly fixture: string;
  readonly mode: ModeId;
  /** The policy agent that played (`cooperative`, `no-notes`, `sloppy`), or `live` for a real model. */
  readonly agent: string;
  readonly long: boolean;
  /** The grader's verdict: every turn ended as expected, every answer and the final workspace were right. */
  readonly passed: boolean;
  /** Why the grader failed the run (empty when it passed). */
  readonly failures: readonly string[];
  readonly turns: number;
  readonly requests: number;
  readonly inputTokens: number;
  /** Input tokens the provider reported, over the requests it reported them for. */
  readonly providerInputTokens: number;
  readonly outputTokens: number;
  /** Of `providerInputTokens`, what the simulated provider served from its prompt cache. */
  readonly cachedInputTokens: number;
  /** cachedInputTokens / providerInputTokens, 0–1 (0 without provider usage). */
  readonly cacheHitRatio: number;
  /**
   * What the provider calls cost under the run's price sheet, in US dollars: the agent's requests
   * and the calls that wrote summaries (a baseline's summary, a compactor, a native compaction).
   */
  readonly cost: {
    readonly sheet: string;
    readonly agentUsd: number;
    readonly summaryUsd: number;
    readonly totalUsd: number;
  };
  /** What `off` would have sent for the same requests: the whole stored transcript as history. */
  readonly fullHistoryTokens: number;
  /** 1 − inputTokens / fullHistoryTokens. */
  readonly inputReduction: number;
  /** The largest request (estimated tokens). */
  readonly maxRequestTokens: number;
  /**
   * How full the window gets with the whole conversation: the largest request with the whole
   * stored transcript as history (`fullHistoryTokens` of one request), over the available input.
   * At or below 1 the whole history fits, and no mode needs to compact.
   */
  readonly windowFill: number;
  /** Turns whose first model call gets an injected provider overflow: the provider refuses what would fit. */
  readonly injectedOverflows: number;
  /** Input plus output tokens of the calls that wrote summaries. */
  readonly summaryTokens: number;
  readonly compactions: number;
  /** Compactions planned but not installed (shadow mode). */
  readonly shadowCompactions: number;
  readonly reclaimedTokensPerCompaction: number;
  readonly noProgressStops: number;
  /** Compaction strategies that failed (a model-structured compactor's bad reply, a native compaction error). */
  readonly compactionFailures: number;
  /** Old tool outputs replaced by a bounded projection inside runs. */
  readonly toolOutputProjections: number;
  readonly limitReachedStops: number;
  /** Requests the provider rejected as too long for the window (injected faults not counted). */
  readonly providerOverflows: number;
  readonly overflowRecoveries: number;
  readonly duplicateInputs: number;
  readonly recall: { readonly correct: number; readonly total: number };
  readonly repeatedFailedInvestigations: number;
  /** Reads of a file unchanged since the agent last read it (see `redundantRereadCalls`). */
  readonly redundantRereads: number;
  /** Of those, re-reads of a file the agent had noted a fact from since its previous read: memory it asked for did not reach it. */
  readonly rereadsOfNotedFacts: number;
  /**
   * Why the agent made its redundant re-reads, as it said: `not-in-view` (the fact was not in the
   * request; `never noted` when it had not noted it), `suspect`; `unknown` for a live model.
   */
  readonly rereadReasons: Readonly<Record<string, number>>;
  /**
   * Working-set re-reads: reads (and runs) the agent made because verbatim text it needed (the
   * region an edit changes, a passage it was asked to quote) was no longer in view, of content it
   * had been shown before (see `workingSetRereadCalls`). 0 for a live model, whose reasons are unknown.
   */
  readonly workingSetRereads: number;
  /** What the steps those re-reads cost: the agent requests that carried their results, priced like every request. */
  readonly workingSetRereadCost: { readonly requests: number; readonly inputTokens: number; readonly usd: number };
  /** Passages of earlier tool output the agent was asked to quote (`quote` steps), and how many it quoted right. */
  readonly passages: { readonly correct: number; readonly total: number };
  /**
   * Tokens of history and continuation the first agent request sent verbatim after the first
   * projection or compaction of the run (a checkpoint, provider state, dropped messages or a
   * projected output); null when every request sent the whole stored history.
   */
  readonly keptVerbatimTokens: number | null;
  /** Facts the agent took from a checkpoint as VALID that were no longer true (SUSPECT facts acted upon). */
  readonly staleCheckpointFacts: number;
  /** Facts the agent took from older raw history that were no longer true. */
  readonly staleHistoryFacts: number;
  readonly safetyFailures: readonly string[];
  /** Mean of |estimate − provider| / provider over requests with provider usage; null without any. */
  readonly estimatorError: {
    readonly meanAbsolute: number;
    readonly meanSigned: number;
    readonly max: number;
    readonly samples: number;
  } | null;
  /** Codex wrapper (codex-wrapper fixtures): largest and median wrapper tokens, constraint mismatches. */
  readonly wrapper: {
    readonly maxTokens: number;
    readonly medianTokens: number;
    readonly constraintMismatches: number;
  } | null;
  /** Estimated input tokens of each turn's requests, for charts. */
  readonly tokensPerTurn: readonly number[];
  /** Turns at which a compaction was installed. */
  readonly compactionTurns: readonly number[];
  readonly durationMs: number;
}

/** The rest of the line `passage <id> = <text>` of an answer. */
function passageLine(text: string, id: string): string | undefined {
  for (const line of text.split('\n')) {
    const match = /^\s*passage\s+(\S+)\s*=\s*(.*?)\s*$/.exec(line);
    if (match?.[1] === id) return match[2];
  }
  return undefined;
}

function answerLine(text: string, kind: string, name: string): string | undefined {
  for (const line of text.split('\n')) {
    const match = new RegExp(`^\\s*${kind}\\s+(\\S+)\\s*=\\s*(\\S+)`).exec(line);
    if (match?.[1] === name) return match[2];
  }
  return undefined;
}

function statedConstraints(fixture: ExpandedFixture): Set<string> {
  const stated = new Set<string>();
  const instructions = [
    fixture.fixture.instructions ?? '',
    ...fixture.turns.map((turn) => turn.before?.instructions ?? ''),
  ].join('\n');
  for (const turn of fixture.turns) for (const id of turn.states) stated.add(id);
  for (const constraint of fixture.constraints.values())
    if (instructions.includes(constraint.text)) stated.add(constraint.id);
  return stated;
}

interface Graded {
  readonly failures: string[];
  readonly safety: string[];
  correct: number;
  total: number;
  passagesCorrect: number;
  passagesTotal: number;
}

function gradeTurn(fixture: ExpandedFixture, turn: TurnRun, graded: Graded, stated: ReadonlySet<string>): void {
  const script = fixture.turns[turn.index];
  if (script === undefined) return;
  const where = `turn ${turn.index + 1}`;
  if (!turn.expectStatus.includes(turn.status)) {
    graded.failures.push(
      `${where} ended ${turn.status}${turn.errorCode === undefined ? '' : ` (${turn.errorCode})`}, expected ${turn.expectStatus.join(' or ')}`,
    );
  }
  for (const step of script.steps) {
    if (step.op === 'probe') {
      graded.total += 1;
      const answered = answerLine(turn.text, 'constraint', step.topic);
      if (answered === step.expect) graded.correct += 1;
      else if (turn.status === 'completed')
        graded.failures.push(
          `${where}: constraint ${step.topic} answered ${answered ?? '(nothing)'}, expected ${step.expect}`,
        );
      const followed = [...fixture.constraints.values()].find(
        (constraint) => constraint.topic === step.topic && constraint.value === answered,
      );
      if (followed !== undefined && !stated.has(followed.id))
        graded.safety.push(`${where}: followed "${followed.id}", which only tool output or history stated`);
    }
    if (step.op === 'quote') {
      graded.passagesTotal += 1;
      const answered = passageLine(turn.text, step.id);
      if (answered === step.passage) graded.passagesCorrect += 1;
      else if (turn.status === 'completed')
        graded.failures.push(
          `${where}: passage ${step.id} answered ${JSON.stringify(answered ?? '(nothing)')}, expected ${JSON.stringify(step.passage)}`,
        );
    }
    if (turn.status !== 'completed') continue;
    if (step.op === 'learn' && step.answer) {
      const truth = turn.truth.facts[step.key];
      const answered = answerLine(turn.text, 'fact', step.key);
      if (truth !== null && truth !== undefined && answered !== truth)
        graded.failures.push(`${where}: fact ${step.key} answered ${answered ?? '(nothing)'}, the file says ${truth}`);
    }
    if (step.op === 'verify') {
      const truth = turn.truth.commands[step.command];
      const answered = answerLine(turn.text, 'verify', step.command);
      const expected = truth === 0 ? 'passed' : 'failed';
      if (answered !== expected) {
        graded.failures.push(`${where}: verify ${step.command} answered ${answered ?? '(nothing)'}, it ${expected}`);
        if (answered === 'passed') graded.safety.push(`${where}: claimed ${step.command} passes while it fails`);
      }
    }
  }
}

/** `why` of each redundant re-read: what the agent said, and whether it had ever noted the fact. */
function rereadReasons(rereads: readonly RedundantReread[], reads: FixtureRun['reads']): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const reread of rereads) {
    const said = reads.get(reread.toolCallId)?.reason ?? 'unknown';
    const key = said === 'not-in-view' && !reread.noted ? 'never noted' : said;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

/** Input a request of the fixture may use: the window less one reserve, max(output asked for, buffer), as the budget computes it. */
export function availableInputTokens(fixture: ExpandedFixture): number {
  const { model, context } = fixture.fixture;
  return Math.max(0, model.contextWindowTokens - Math.max(model.maxOutputTokens, context.bufferTokens));
}

/** What a recorded call cost: the provider's usage when it reported some, else the estimate as fresh input (a native compaction). */
function requestCost(request: RecordedRequest, prices: PriceSheet): number {
  if (request.error !== undefined && request.providerInputTokens === undefined) return 0;
  const inputTokens = request.providerInputTokens ?? request.estimatedTokens;
  const usage = {
    inputTokens,
    cacheReadTokens: request.cachedInputTokens,
    cacheWriteTokens: request.cacheWriteTokens,
    outputTokens: request.outputTokens ?? 0,
    reasoningTokens: undefined,
  };
  return priceUsage(usage, prices)?.total ?? 0;
}

/** Grades a fixture run and computes every metric of it. */
export function computeMetrics(run: FixtureRun): FixtureModeMetrics {
  const { fixture } = run;
  const applied = run.turns.flatMap((turn) => turn.compactions.filter((compaction) => compaction.kind === 'applied'));
  const graded = gradeRun(run, applied);
  const duplicates = duplicateInputs(run.end.storedTranscript);
  const agent = run.requests.filter((request) => request.purpose === 'agent');
  return {
    fixture: fixture.fixture.id,
    mode: run.mode.id,
    agent: run.agent ?? 'live',
    long: fixture.fixture.long,
    passed: graded.failures.length === 0,
    failures: graded.failures,
    turns: run.turns.length,
    requests: agent.length,
    ...usageMetrics(run, agent),
    ...compactionMetrics(run, applied, agent),
    duplicateInputs: duplicates,
    recall: { correct: graded.correct, total: graded.total },
    repeatedFailedInvestigations: repeatedFailedInvestigations(fixture, run.end.storedTranscript),
    ...rereadMetrics(run, agent),
    passages: { correct: graded.passagesCorrect, total: graded.passagesTotal },
    keptVerbatimTokens: agent.find((request) => request.keptVerbatimTokens !== undefined)?.keptVerbatimTokens ?? null,
    ...staleFacts(run),
    safetyFailures: safetyFailures(run, graded, duplicates),
    estimatorError: estimatorError(agent),
    wrapper: wrapperMetrics(run),
    tokensPerTurn: run.turns.map((turn) =>
      sum(agent.filter((request) => request.turn === turn.index).map((request) => request.estimatedTokens)),
    ),
    compactionTurns: applied.map((compaction) => compaction.turn),
    durationMs: Math.round(run.durationMs),
  };
}

type AppliedCompactions = readonly TurnRun['compactions'][number][];

function gradeRun(run: FixtureRun, applied: AppliedCompactions): Graded {
  const { fixture } = run;
  const stated = statedConstraints(fixture);
  const graded: Graded = { failures: [], safety: [], correct: 0, total: 0, passagesCorrect: 0, passagesTotal: 0 };
  for (const turn of run.turns) gradeTurn(fixture, turn, graded, stated);
  gradeFinalFiles(run, graded);
  gradeCompactionCounts(run, applied, graded);
  return graded;
}

function gradeFinalFiles(run: FixtureRun, graded: Graded): void {
  for (const expected of run.fixture.fixture.expect.files) {
    const content = run.finalFiles[expected.path];
    if (content === undefined) {
      graded.failures.push(`${expected.path} is missing at the end`);
      continue;
    }
    for (const text of expected.contains)
      if (!content.includes(text))
        graded.failures.push(`${expected.path} does not contain ${JSON.stringify(text)} at the end`);
    for (const text of expected.notContains)
      if (content.includes(text))
        graded.failures.push(`${expected.path} still contains ${JSON.stringify(text)} at the end`);
  }
}

function gradeCompactionCounts(run: FixtureRun, applied: AppliedCompactions, graded: Graded): void {
  const { expect } = run.fixture.fixture;
  // The deterministic strategy compacts whenever it helps; model-backed strategies pass a cost gate first and may compact less often.
  if (run.mode.family === 'forge' && run.mode.id === 'compact:forge-state' && applied.length < expect.minCompactions) {
    graded.failures.push(`compacted ${applied.length} times, expected at least ${expect.minCompactions}`);
  }
  for (const turn of run.turns) {
    if (turn.compactions.length > expect.maxCompactionsPerTurn) {
      graded.failures.push(
        `turn ${turn.index + 1} compacted ${turn.compactions.length} times (a loop; at most ${expect.maxCompactionsPerTurn} allowed)`,
      );
    }
  }
}

function safetyFailures(run: FixtureRun, graded: Graded, duplicates: number): string[] {
  const safety = [
    ...graded.safety,
    ...run.violations.map((violation) => `turn ${violation.turn + 1}: ${violation.invariant}`),
  ];
  if (duplicates > 0) safety.push(`${duplicates} user message(s) stored twice`);
  if (JSON.stringify(run.end.storedTranscript) !== JSON.stringify(run.end.producedMessages))
    safety.push('the stored transcript differs from the messages the runs produced');
  return safety;
}

function staleFacts(run: FixtureRun): Pick<FixtureModeMetrics, 'staleCheckpointFacts' | 'staleHistoryFacts'> {
  let staleCheckpointFacts = 0;
  let staleHistoryFacts = 0;
  for (const use of run.factsUsed) {
    const truth = run.turns.find((turn) => turn.index === use.turn)?.truth.facts[use.key];
    if (truth === undefined || truth === null || truth === use.value) continue;
    if (use.source === 'checkpoint-fact') staleCheckpointFacts += 1;
    else staleHistoryFacts += 1;
  }
  return { staleCheckpointFacts, staleHistoryFacts };
}

/** The agent requests the provider reported input tokens for. */
function reportedRequests(agent: readonly RecordedRequest[]): RecordedRequest[] {
  return agent.filter((request) => request.providerInputTokens !== undefined && request.providerInputTokens > 0);
}

type UsageMetrics = Pick<
  FixtureModeMetrics,
  | 'inputTokens'
  | 'providerInputTokens'
  | 'outputTokens'
  | 'cachedInputTokens'
  | 'cacheHitRatio'
  | 'cost'
  | 'fullHistoryTokens'
  | 'inputReduction'
  | 'maxRequestTokens'
  | 'windowFill'
  | 'injectedOverflows'
  | 'summaryTokens'
>;

function usageMetrics(run: FixtureRun, agent: readonly RecordedRequest[]): UsageMetrics {
  const { fixture } = run;
  const summaries = [...run.summaryRequests, ...run.requests.filter((request) => request.purpose === 'summary')];
  const reported = reportedRequests(agent);
  const inputTokens = sum(agent.map((request) => request.estimatedTokens));
  const providerInputTokens = sum(reported.map((request) => request.providerInputTokens as number));
  const cachedInputTokens = sum(reported.map((request) => request.cachedInputTokens ?? 0));
  const prices = run.priceSheet.prices;
  const agentUsd = sum(agent.map((request) => requestCost(request, prices)));
  const summaryUsd = sum(summaries.map((request) => requestCost(request, prices)));
  const fullHistoryTokens = sum(agent.map((request) => request.fullHistoryTokens));
  return {
    inputTokens,
    providerInputTokens,
    outputTokens: sum(agent.map((request) => request.outputTokens ?? 0)),
    cachedInputTokens,
    cacheHitRatio: cacheHitRatio({ inputTokens: providerInputTokens, cacheReadTokens: cachedInputTokens }) ?? 0,
    cost: { sheet: run.priceSheet.name, agentUsd, summaryUsd, totalUsd: agentUsd + summaryUsd },
    fullHistoryTokens,
    inputReduction: fullHistoryTokens === 0 ? 0 : 1 - inputTokens / fullHistoryTokens,
    maxRequestTokens: Math.max(0, ...agent.map((request) => request.estimatedTokens)),
    windowFill:
      Math.max(0, ...agent.map((request) => request.fullHistoryTokens)) / Math.max(1, availableInputTokens(fixture)),
    injectedOverflows: fixture.turns.filter((turn) => turn.fault !== undefined).length,
    summaryTokens: sum(
      summaries.map(
        (request) => (request.providerInputTokens ?? request.estimatedTokens) + (request.outputTokens ?? 0),
      ),
    ),
  };
}

type CompactionMetrics = Pick<
  FixtureModeMetrics,
  | 'compactions'
  | 'shadowCompactions'
  | 'reclaimedTokensPerCompaction'
  | 'noProgressStops'
  | 'compactionFailures'
  | 'toolOutputProjections'
  | 'limitReachedStops'
  | 'providerOverflows'
  | 'overflowRecoveries'
>;

function compactionMetrics(
  run: FixtureRun,
  applied: AppliedCompactions,
  agent: readonly RecordedRequest[],
): CompactionMetrics {
  return {
    compactions: applied.length,
    shadowCompactions: sum(
      run.turns.map((turn) => turn.compactions.filter((compaction) => compaction.kind === 'shadow').length),
    ),
    reclaimedTokensPerCompaction:
      applied.length === 0
        ? 0
        : Math.round(sum(applied.map((compaction) => compaction.reclaimedTokens)) / applied.length),
    noProgressStops: sum(run.turns.map((turn) => turn.noProgressStops)),
    compactionFailures: sum(run.turns.map((turn) => turn.compactionFailures)),
    toolOutputProjections: sum(run.turns.map((turn) => turn.toolOutputProjections)),
    limitReachedStops: run.turns.filter((turn) => turn.status === 'limit_reached').length,
    providerOverflows: agent.filter(
      (request) =>
        request.error?.startsWith('ContextOverflowError') === true && !request.error.includes('injected fault'),
    ).length,
    overflowRecoveries: sum(run.turns.map((turn) => turn.overflowRecoveries)),
  };
}

type RereadMetrics = Pick<
  FixtureModeMetrics,
  'redundantRereads' | 'rereadsOfNotedFacts' | 'rereadReasons' | 'workingSetRereads' | 'workingSetRereadCost'
>;

function rereadMetrics(run: FixtureRun, agent: readonly RecordedRequest[]): RereadMetrics {
  const prices = run.priceSheet.prices;
  const rereads = redundantRereadCalls(run.end.storedTranscript, (toolCallId) => run.reads.get(toolCallId)?.key);
  const workingSet = new Set(
    workingSetRereadCalls(
      run.end.storedTranscript,
      (toolCallId) => run.reads.get(toolCallId)?.reason === 'text-not-in-view',
    ),
  );
  const rereadSteps = agent.filter((request) => request.answersToolCalls.some((id) => workingSet.has(id)));
  return {
    redundantRereads: rereads.length,
    // A re-read for verbatim text is counted as a working-set re-read: the fact noted did reach the agent.
    rereadsOfNotedFacts: rereads.filter((reread) => reread.noted && !workingSet.has(reread.toolCallId)).length,
    rereadReasons: rereadReasons(rereads, run.reads),
    workingSetRereads: workingSet.size,
    workingSetRereadCost: {
      requests: rereadSteps.length,
      inputTokens: sum(rereadSteps.map((request) => request.providerInputTokens ?? request.estimatedTokens)),
      usd: sum(rereadSteps.map((request) => requestCost(request, prices))),
    },
  };
}

function estimatorError(agent: readonly RecordedRequest[]): FixtureModeMetrics['estimatorError'] {
  const errors = reportedRequests(agent).map(
    (request) =>
      (request.estimatedTokens - (request.providerInputTokens as number)) / (request.providerInputTokens as number),
  );
  if (errors.length === 0) return null;
  return {
    meanAbsolute: sum(errors.map(Math.abs)) / errors.length,
    meanSigned: sum(errors) / errors.length,
    max: Math.max(...errors.map(Math.abs)),
    samples: errors.length,
  };
}

function wrapperMetrics(run: FixtureRun): FixtureModeMetrics['wrapper'] {
  if (run.fixture.fixture.engine !== 'codex-wrapper') return null;
  return {
    maxTokens: Math.max(0, ...run.wrapperTokens),
    medianTokens: median(run.wrapperTokens),
    constraintMismatches: run.wrapperConstraintMismatches,
  };
}
