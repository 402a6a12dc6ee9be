import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICE_SHEET } from '../pricing/eval-prices.js';
import { DEFAULT_GATES } from '../gates/gates.js';
import type { FixtureModeMetrics } from '../metrics/metrics.js';
import type { EvalReport } from '../run/run-eval.js';
import { renderHtmlReport } from './html-report.js';
import { renderMarkdownReport } from './markdown-report.js';
import { renderProgress } from './progress.js';
import { renderTextReport } from './text-report.js';

const result = {
  fixture: 'hostile <img src=x onerror=alert(1)>',
  mode: 'compact:forge-state',
  agent: 'cooperative',
  long: true,
  passed: false,
  failures: ['turn 3: constraint a|b answered unknown, expected "<b>"'],
  turns: 3,
  requests: 4,
  inputTokens: 12_345,
  providerInputTokens: 10_000,
  outputTokens: 40,
  cachedInputTokens: 6_000,
  cacheHitRatio: 0.6,
  cost: { sheet: 'openai', agentUsd: 0.0213, summaryUsd: 0.001, totalUsd: 0.0223 },
  fullHistoryTokens: 50_000,
  inputReduction: 0.75,
  maxRequestTokens: 5000,
  windowFill: 2.5,
  injectedOverflows: 0,
  summaryTokens: 0,
  compactions: 1,
  shadowCompactions: 0,
  reclaimedTokensPerCompaction: 3000,
  noProgressStops: 0,
  compactionFailures: 0,
  toolOutputProjections: 0,
  limitReachedStops: 0,
  providerOverflows: 0,
  overflowRecoveries: 0,
  duplicateInputs: 0,
  recall: { correct: 0, total: 1 },
  repeatedFailedInvestigations: 0,
  redundantRereads: 2,
  rereadsOfNotedFacts: 0,
  rereadReasons: { 'never noted': 2 },
  workingSetRereads: 1,
  workingSetRereadCost: { requests: 1, inputTokens: 4_200, usd: 0.0031 },
  passages: { correct: 1, total: 1 },
  keptVerbatimTokens: 3_916,
  staleCheckpointFacts: 0,
  staleHistoryFacts: 0,
  safetyFailures: [],
  estimatorError: { meanAbsolute: 0.3, meanSigned: 0.3, max: 0.4, samples: 4 },
  wrapper: null,
  tokensPerTurn: [1000, 4000, 2000],
  compactionTurns: [2],
  durationMs: 10,
} satisfies FixtureModeMetrics;

const report: EvalReport = {
  reportVersion: 2,
  source: 'suite smoke',
  model: 'policy',
  agents: ['cooperative'],
  startedAt: '2026-01-01T00:00:00.000Z',
  durationMs: 1234,
  fixtures: [{ id: result.fixture, title: 'Hostile', long: true, turns: 3 }],
  modes: [
    { id: 'compact:forge-state', label: 'compact', family: 'forge', implementation: 'harness', unavailable: null },
  ],
  results: [result],
  errors: [],
  gates: [
    {
      gate: 'recall',
      mode: 'compact:forge-state',
      agent: 'cooperative',
      status: 'fail',
      actual: '0.0 % (0/1)',
      threshold: '≥ 100.0 %',
      detail: `${result.fixture} 0/1`,
    },
  ],
  gatesConfig: DEFAULT_GATES,
  priceSheet: DEFAULT_PRICE_SHEET,
};

describe('reports', () => {
  it('renders an HTML page with escaped text, inline charts and nothing fetched at view time', () => {
    const html = renderHtmlReport(report);
    expect(html).not.toContain('<img');
    expect(html).toContain('hostile &lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('<polyline');
    expect(html).toContain('<circle');
    expect(html).not.toMatch(/<script|<link|(?:src|href)="/);
  });

  it('renders Markdown whose cells cannot break the table or carry raw HTML', () => {
    const markdown = renderMarkdownReport(report);
    expect(markdown).toContain('constraint a\\|b answered unknown, expected "&lt;b&gt;"');
    expect(markdown).toContain('| recall | compact:forge-state | **FAIL** |');
    expect(markdown).not.toContain('<img');
  });

  it('renders the terminal report without colour codes when painting is off, naming failed gates', () => {
    const text = renderTextReport(report);
    expect(text).not.toContain('\u001b[');
    expect(text).toContain('FAIL  recall [compact:forge-state] 0.0 % (0/1)');
    expect(text).toContain('1 gate(s) failed: recall [compact:forge-state]');
    expect(text).toContain('Compactions per fixture, by window fill');
    expect(text).toMatch(/hostile <img src=x onerror=alert\(1\)>\s+2\.50×\s+1\n/);
  });

  it('shows working-set re-reads with the price of their steps, and the tokens kept after the first reduction, in every format', () => {
    const line =
      'hostile <img src=x onerror=alert(1)> × compact:forge-state: 1 working-set re-read(s), 1 step(s) of 4,200 input tokens, $0.0031';
    expect(renderTextReport(report)).toContain(`  ${line}`);
    expect(renderMarkdownReport(report)).toContain('## Working-set re-reads, and what their steps cost');
    expect(renderMarkdownReport(report)).toContain('$0.0031');
    expect(renderHtmlReport(report)).toContain('1 working-set re-read(s), 1 step(s) of 4,200 input tokens, $0.0031');
    const text = renderTextReport(report);
    expect(text).toMatch(/ws re-reads \(cost\)/);
    expect(text).toContain('3,916');
    const none = {
      ...report,
      results: [{ ...result, workingSetRereads: 0, workingSetRereadCost: { requests: 0, inputTokens: 0, usd: 0 } }],
    };
    expect(renderTextReport(none)).not.toContain('working-set re-read(s)');
  });

  it('fits an 80-column terminal: a table too wide becomes one block per row, every value kept', () => {
    const wide = renderTextReport(report);
    expect(Math.max(...wide.split('\n').map((line) => line.length))).toBeGreaterThan(80);
    const narrow = renderTextReport(report, undefined, { columns: 80 });
    const tableLines = narrow
      .split('\n')
      .filter(
        (line) =>
          !line.startsWith('  FAIL') &&
          !line.startsWith('  pass') &&
          !line.includes(' × ') &&
          !line.startsWith('forge eval'),
      );
    expect(Math.max(...tableLines.map((line) => [...line].length))).toBeLessThanOrEqual(80);
    expect(narrow).toContain('hostile <img src=x onerror=alert(1)>  compact:forge-state');
    expect(narrow).toMatch(/ · /);
    expect(narrow).toContain('1 gate(s) failed: recall [compact:forge-state]');
  });

  it('draws a progress bar of finished runs', () => {
    expect(
      renderProgress(
        { event: 'turn', done: 5, total: 10, fixture: 'long-recall', mode: 'warn', turn: 2, turns: 50 },
        10,
      ),
    ).toBe('[#####.....] 5/10 long-recall × warn, turn 3/50');
  });
});
