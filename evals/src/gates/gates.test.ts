import { describe, expect, it } from 'vitest';
import type { FixtureModeMetrics } from '../metrics/metrics.js';
import { MODE_RUNNERS } from '../modes/registry.js';
import type { ModeId } from '../modes/types.js';
import { evaluateGates, gatesConfigSchema } from './gates.js';

function metrics(mode: ModeId, fixture: string, overrides: Partial<FixtureModeMetrics> = {}): FixtureModeMetrics {
  return {
    fixture,
    mode,
    agent: 'cooperative',
    long: true,
    passed: true,
    failures: [],
    turns: 10,
    requests: 20,
    inputTokens: 30_000,
    providerInputTokens: 25_000,
    outputTokens: 500,
    cachedInputTokens: 20_000,
    cacheHitRatio: 0.8,
    cost: { sheet: 'openai', agentUsd: 0.01, summaryUsd: 0, totalUsd: 0.01 },
    fullHistoryTokens: 100_000,
    inputReduction: 0.7,
    maxRequestTokens: 9000,
    windowFill: 0.5,
    injectedOverflows: 0,
    summaryTokens: 0,
    compactions: 3,
    shadowCompactions: 0,
    reclaimedTokensPerCompaction: 4000,
    noProgressStops: 0,
    compactionFailures: 0,
    toolOutputProjections: 0,
    limitReachedStops: 0,
    providerOverflows: 0,
    overflowRecoveries: 0,
    duplicateInputs: 0,
    recall: { correct: 2, total: 2 },
    repeatedFailedInvestigations: 0,
    redundantRereads: 0,
    rereadsOfNotedFacts: 0,
    rereadReasons: {},
    workingSetRereads: 0,
    workingSetRereadCost: { requests: 0, inputTokens: 0, usd: 0 },
    passages: { correct: 0, total: 0 },
    keptVerbatimTokens: null,
    staleCheckpointFacts: 0,
    staleHistoryFacts: 0,
    safetyFailures: [],
    estimatorError: null,
    wrapper: null,
    tokensPerTurn: [],
    compactionTurns: [],
    durationMs: 1,
    ...overrides,
  };
}

const compact = MODE_RUNNERS.filter(
  (runner) => runner.id === 'compact:forge-state' || runner.id === 'warn' || runner.id === 'baseline:full-history',
);
const gate = (
  results: FixtureModeMetrics[],
  name: string,
  mode: ModeId = 'compact:forge-state',
  config = gatesConfigSchema.parse({}),
) => evaluateGates(results, compact, config).find((result) => result.gate === name && result.mode === mode);

describe('gates', () => {
  it('passes a compacting mode that meets every default threshold', () => {
    const results = [
      metrics('baseline:full-history', 'a', { compactions: 0, inputReduction: 0 }),
      metrics('warn', 'a', { compactions: 0, inputReduction: 0 }),
      metrics('compact:forge-state', 'a'),
    ];
    const gates = evaluateGates(results, compact).filter((result) => result.mode === 'compact:forge-state');
    expect(gates.map((result) => [result.gate, result.status])).toEqual([
      ['input-reduction', 'pass'],
      ['recall', 'pass'],
      ['repeated-failed-investigations', 'pass'],
      ['redundant-rereads', 'pass'],
      ['stale-checkpoint-facts', 'pass'],
      ['working-set-rereads-vs-baselines', 'pass'],
      ['pass-rate-vs-full-history', 'pass'],
      ['cost-vs-full-history', 'pass'],
      ['cost-vs-baselines', 'pass'],
      ['no-worse-than-full-history', 'pass'],
      // Its one run compacted: there is no run that sent the whole history to hold to 0.
      ['working-set-rereads-while-whole', 'not-evaluated'],
      ['safety', 'pass'],
    ]);
  });

  it('fails and names the fixtures behind a missed threshold', () => {
    const results = [
      metrics('baseline:full-history', 'a'),
      metrics('compact:forge-state', 'a', {
        recall: { correct: 1, total: 2 },
        redundantRereads: 2,
        rereadsOfNotedFacts: 2,
        passed: false,
      }),
    ];
    expect(gate(results, 'recall')).toMatchObject({ status: 'fail', detail: 'a 1/2' });
    expect(gate(results, 'redundant-rereads')).toMatchObject({ status: 'fail', actual: '2', detail: 'a (2)' });
    expect(gate(results, 'pass-rate-vs-full-history')).toMatchObject({ status: 'fail', detail: 'a' });
  });

  it('prices the default against the whole history where it fits, and against every passing baseline on long fixtures', () => {
    const cost = (totalUsd: number) => ({ cost: { sheet: 'openai', agentUsd: totalUsd, summaryUsd: 0, totalUsd } });
    const modes = MODE_RUNNERS.filter((runner) =>
      ['compact:forge-state', 'baseline:full-history', 'baseline:user-summary'].includes(runner.id),
    );
    const priced = (results: FixtureModeMetrics[], name: string) =>
      evaluateGates(results, modes).find((result) => result.gate === name && result.mode === 'compact:forge-state');
    const fits = (own: number) => [
      metrics('baseline:full-history', 'fits', { long: false, ...cost(0.05) }),
      metrics('compact:forge-state', 'fits', { long: false, ...cost(own) }),
    ];
    expect(priced(fits(0.05), 'cost-vs-full-history')).toMatchObject({
      status: 'pass',
      actual: '$0.0500 vs full history $0.0500 over 1 fixture(s)',
    });
    expect(priced(fits(0.06), 'cost-vs-full-history')).toMatchObject({
      status: 'fail',
      detail: 'fits $0.0600 vs $0.0500',
    });
    expect(priced(fits(0.0500325), 'cost-vs-full-history')).toMatchObject({
      status: 'fail',
      actual: '$0.05003 vs full history $0.05000 over 1 fixture(s)',
      detail: 'fits $0.05003 vs $0.05000',
    });
    // Enforced by default, like every other gate; a gates file can make them advisory.
    expect(priced(fits(0.06), 'cost-vs-full-history')?.advisory).toBeUndefined();
    const advisory = evaluateGates(fits(0.06), modes, gatesConfigSchema.parse({ enforceCostGates: false })).find(
      (result) => result.gate === 'cost-vs-full-history',
    );
    expect(advisory).toMatchObject({ status: 'fail', advisory: true });
    // An agent that skips, on purpose, the notes and checkpoint requests the prompt asks for is priced, but not held to it.
    const sloppy = fits(0.06).map((result) => ({ ...result, agent: 'sloppy' }));
    expect(evaluateGates(sloppy, modes).find((result) => result.gate === 'cost-vs-full-history')).toMatchObject({
      agent: 'sloppy',
      status: 'fail',
      advisory: true,
    });
    expect(evaluateGates(sloppy, modes).find((result) => result.gate === 'recall')?.advisory).toBeUndefined();
    const long = (own: number) => [
      metrics('baseline:full-history', 'big', { windowFill: 3, passed: false, ...cost(0.02) }),
      metrics('baseline:user-summary', 'big', { windowFill: 3, ...cost(0.1) }),
      metrics('compact:forge-state', 'big', { windowFill: 3, ...cost(own) }),
    ];
    // The whole history is refused on a long fixture: its cheaper, failed run is no bar to clear.
    expect(priced(long(0.08), 'cost-vs-baselines')).toMatchObject({ status: 'pass', actual: '1/1 long fixtures' });
    expect(priced(long(0.12), 'cost-vs-baselines')).toMatchObject({
      status: 'fail',
      detail: 'big $0.1200 vs baseline:user-summary $0.1000',
    });
    expect(priced([metrics('compact:forge-state', 'big', cost(0.1))], 'cost-vs-baselines')?.status).toBe(
      'not-evaluated',
    );
  });

  it('holds every Forge mode to the full history where the whole history fits, and nowhere else', () => {
    const fits = [
      metrics('baseline:full-history', 'fits', { redundantRereads: 1 }),
      metrics('warn', 'fits', { redundantRereads: 1 }),
      metrics('compact:forge-state', 'fits', {
        redundantRereads: 2,
        recall: { correct: 1, total: 2 },
        repeatedFailedInvestigations: 1,
      }),
    ];
    const outgrows = [
      metrics('baseline:full-history', 'big', { windowFill: 2.5, passed: false, recall: { correct: 0, total: 2 } }),
      metrics('warn', 'big', { windowFill: 2.5, passed: false, recall: { correct: 0, total: 2 } }),
      metrics('compact:forge-state', 'big', { windowFill: 2.5 }),
    ];
    expect(gate([...fits, ...outgrows], 'no-worse-than-full-history', 'warn')).toMatchObject({
      status: 'pass',
      actual: '1/1 fixtures',
    });
    expect(gate([...fits, ...outgrows], 'no-worse-than-full-history')).toMatchObject({
      status: 'fail',
      detail: 'fits: recall 1/2 vs 2/2, re-reads 2 vs 1, repeated failures 1 vs 0',
    });
    expect(gate(outgrows, 'no-worse-than-full-history', 'warn')?.status).toBe('not-evaluated');
    // A fixture is judged by its peak fill over every run: one run that outgrew the window makes it a fixture that does not fit.
    const mixed = [
      metrics('baseline:full-history', 'edge'),
      metrics('warn', 'edge', { windowFill: 1.1, passed: false }),
    ];
    expect(gate(mixed, 'no-worse-than-full-history', 'warn')?.status).toBe('not-evaluated');
    // An injected provider overflow says the provider refused it: not a fixture where the whole history fits.
    const refused = [
      metrics('baseline:full-history', 'fault', { injectedOverflows: 1, passed: false }),
      metrics('warn', 'fault', { injectedOverflows: 1, redundantRereads: 3 }),
    ];
    expect(gate(refused, 'no-worse-than-full-history', 'warn')?.status).toBe('not-evaluated');
  });

  it('uses the median reduction over long fixtures only, and honours configured thresholds', () => {
    const results = [
      metrics('compact:forge-state', 'a', { inputReduction: 0.4 }),
      metrics('compact:forge-state', 'b', { inputReduction: 0.45 }),
      metrics('compact:forge-state', 'c', { inputReduction: 0.9, long: false }),
    ];
    expect(gate(results, 'input-reduction')?.status).toBe('fail');
    expect(
      gate(results, 'input-reduction', 'compact:forge-state', gatesConfigSchema.parse({ minInputReduction: 0.4 }))
        ?.status,
    ).toBe('pass');
  });

  it('reports gates it cannot measure as not evaluated, never as passed', () => {
    const unavailable = MODE_RUNNERS.filter((runner) => runner.id === 'compact:provider-native');
    const gates = evaluateGates([], unavailable);
    expect(gates.length).toBeGreaterThan(0);
    expect(gates.every((result) => result.status === 'not-evaluated')).toBe(true);
    const withoutWarn = evaluateGates(
      [metrics('compact:forge-state', 'a', { long: false, recall: { correct: 0, total: 0 } })],
      compact,
    );
    expect(withoutWarn.find((result) => result.gate === 'pass-rate-vs-full-history')?.status).toBe('not-evaluated');
    expect(withoutWarn.find((result) => result.gate === 'no-worse-than-full-history')?.status).toBe('not-evaluated');
    expect(withoutWarn.find((result) => result.gate === 'input-reduction')?.status).toBe('not-evaluated');
    expect(withoutWarn.find((result) => result.gate === 'recall')?.status).toBe('not-evaluated');
  });

  it('applies candidate gates only to the configured candidates', () => {
    const results = [metrics('compact:forge-state', 'a', { redundantRereads: 3 })];
    const config = gatesConfigSchema.parse({ candidates: ['compact:model-structured'] });
    const gates = evaluateGates(results, compact, config).filter((result) => result.mode === 'compact:forge-state');
    expect(gates.map((result) => result.gate)).toEqual([
      'no-worse-than-full-history',
      'working-set-rereads-while-whole',
      'safety',
    ]);
  });

  it('gates the shipped default strategy unless told otherwise, and every strategy with "*"', () => {
    const results = [
      metrics('compact:forge-state', 'a'),
      metrics('compact:provider-native', 'a', { redundantRereads: 4, rereadsOfNotedFacts: 4 }),
    ];
    const runners = MODE_RUNNERS.filter(
      (runner) => runner.id === 'compact:forge-state' || runner.id === 'compact:provider-native',
    );
    const byDefault = evaluateGates(results, runners);
    expect(
      byDefault.filter((result) => result.mode === 'compact:provider-native').map((result) => result.gate),
    ).toEqual(['no-worse-than-full-history', 'working-set-rereads-while-whole', 'safety']);
    expect(
      byDefault.some((result) => result.mode === 'compact:forge-state' && result.gate === 'redundant-rereads'),
    ).toBe(true);
    const everything = evaluateGates(results, runners, gatesConfigSchema.parse({ candidates: ['*'] }));
    expect(
      everything.find((result) => result.mode === 'compact:provider-native' && result.gate === 'redundant-rereads')
        ?.status,
    ).toBe('fail');
  });

  it('counts against the re-read gate only re-reads of facts the agent had noted', () => {
    const results = [
      metrics('compact:forge-state', 'a', {
        redundantRereads: 5,
        rereadsOfNotedFacts: 0,
        rereadReasons: { 'never noted': 5 },
      }),
    ];
    expect(gate(results, 'redundant-rereads')).toMatchObject({ status: 'pass', actual: '0' });
    expect(
      gate([metrics('compact:forge-state', 'a', { redundantRereads: 5, rereadsOfNotedFacts: 1 })], 'redundant-rereads'),
    ).toMatchObject({ status: 'fail', actual: '1' });
  });

  it('holds every Forge mode to 0 working-set re-reads in the runs that sent the whole history', () => {
    const whole = { compactions: 0, toolOutputProjections: 0, keptVerbatimTokens: null };
    // warn sent everything and still re-read text it had seen: the agent's view is broken, not its memory.
    const results = [
      metrics('warn', 'a', { ...whole, workingSetRereads: 2 }),
      metrics('warn', 'b', { ...whole, workingSetRereads: 0 }),
    ];
    expect(gate(results, 'working-set-rereads-while-whole', 'warn')).toMatchObject({
      status: 'fail',
      actual: '2',
      detail: 'a (2)',
    });
    expect(gate([results[1] as FixtureModeMetrics], 'working-set-rereads-while-whole', 'warn')).toMatchObject({
      status: 'pass',
      actual: '0',
    });
    // A run that projected (or compacted, or dropped messages) is not held to it: its re-reads are what the other gate compares.
    const projected = [
      metrics('compact:forge-state', 'a', { ...whole, toolOutputProjections: 1, workingSetRereads: 3 }),
      metrics('compact:forge-state', 'b', { ...whole, workingSetRereads: 0 }),
    ];
    expect(gate(projected, 'working-set-rereads-while-whole')).toMatchObject({ status: 'pass', actual: '0' });
    const kept = [metrics('compact:forge-state', 'a', { ...whole, keptVerbatimTokens: 3916, workingSetRereads: 3 })];
    expect(gate(kept, 'working-set-rereads-while-whole')).toMatchObject({ status: 'not-evaluated' });
  });

  it('holds the default strategy to no more working-set re-reads than any baseline that played a long fixture to the end', () => {
    const modes = MODE_RUNNERS.filter((runner) =>
      ['compact:forge-state', 'baseline:sliding-window', 'baseline:user-summary'].includes(runner.id),
    );
    const versus = (results: FixtureModeMetrics[]) =>
      evaluateGates(results, modes).find(
        (result) => result.gate === 'working-set-rereads-vs-baselines' && result.mode === 'compact:forge-state',
      );
    const run = (own: number, sliding: number, summary: number, extra: Partial<FixtureModeMetrics> = {}) => [
      metrics('baseline:sliding-window', 'big', { workingSetRereads: sliding }),
      metrics('baseline:user-summary', 'big', { workingSetRereads: summary, ...extra }),
      metrics('compact:forge-state', 'big', { workingSetRereads: own }),
    ];
    expect(versus(run(1, 1, 4))).toMatchObject({ status: 'pass', actual: '1/1 long fixtures' });
    expect(versus(run(3, 1, 4))).toMatchObject({
      status: 'fail',
      actual: '0/1 long fixtures',
      detail: 'big 3 vs baseline:sliding-window 1',
    });
    // A baseline that stopped at the limit skipped the steps that needed the text: no comparison with it.
    expect(versus(run(3, 5, 0, { limitReachedStops: 1 }))).toMatchObject({ status: 'pass' });
    // Short fixtures are not compared.
    expect(versus(run(3, 1, 1).map((result) => ({ ...result, long: false })))).toMatchObject({
      status: 'not-evaluated',
    });
  });

  it('evaluates every agent on its own runs', () => {
    const results = [
      metrics('compact:forge-state', 'a'),
      metrics('warn', 'a'),
      metrics('compact:forge-state', 'a', { agent: 'no-notes', recall: { correct: 0, total: 2 } }),
      metrics('warn', 'a', { agent: 'no-notes' }),
    ];
    const gates = evaluateGates(results, compact).filter((result) => result.gate === 'recall');
    expect(gates.map((result) => [result.agent, result.status])).toEqual([
      ['cooperative', 'pass'],
      ['no-notes', 'fail'],
    ]);
  });

  it('applies the safety gate to every Forge mode', () => {
    const results = [
      metrics('warn', 'a', { safetyFailures: ['turn 3: stale-instructions'] }),
      metrics('compact:forge-state', 'a'),
    ];
    expect(gate(results, 'safety', 'warn')).toMatchObject({ status: 'fail', detail: 'a (1)' });
  });
});
