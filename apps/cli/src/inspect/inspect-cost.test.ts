import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Usage } from '@forge/core';
import { priceUsage } from '@forge/core/pricing';
import { startLoopbackProvider, turn, type LoopbackProvider } from '@forge/loopback-provider';
import { OPENAI_PRICE_TABLE } from '@forge/model-openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, temporaryDirectory } from '../test-support/cli-harness.js';
import { budgetTable } from './budget-table.test-helpers.js';
import type { InspectReport } from './report.js';

/*
 * `forge inspect` on runs made through the real OpenAI adapter over HTTP to the loopback server,
 * which reports cached input the way the Responses API does: the cost of each step and the total
 * come from the price table, cached tokens at the cached rate.
 */

let workspace: Awaited<ReturnType<typeof temporaryDirectory>>;
let forgeHome: Awaited<ReturnType<typeof temporaryDirectory>>;
let provider: LoopbackProvider;

beforeAll(async () => {
  workspace = await temporaryDirectory('forge-inspect-cost-');
  forgeHome = await temporaryDirectory('forge-inspect-cost-home-');
  await writeFile(path.join(workspace.path, 'NOTES.md'), 'The release is on Friday.\n');
  provider = await startLoopbackProvider();
});

afterAll(async () => {
  await provider.close();
  await workspace.remove();
  await forgeHome.remove();
});

const env = () => ({ FORGE_HOME: forgeHome.path, OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: provider.baseURL });
const forge = (args: readonly string[]) => runCli(args, { cwd: workspace.path, env: env() });
const prices = OPENAI_PRICE_TABLE['gpt-5.1'];
const usage = (inputTokens: number, cacheReadTokens: number, outputTokens: number): Usage => ({
  inputTokens,
  cacheReadTokens,
  cacheWriteTokens: undefined,
  outputTokens,
  reasoningTokens: undefined,
});
const costOf = (value: Usage) => (prices === undefined ? undefined : priceUsage(value, prices));

describe('forge inspect prices a run that reports cached tokens', () => {
  it('shows input, cached and cost per step, and the run total with its cache-hit ratio', async () => {
    provider.enqueue(
      turn({
        toolCalls: [{ name: 'read_file', arguments: { path: 'NOTES.md' }, callId: 'call_notes' }],
        usage: { inputTokens: 4000, cachedInputTokens: 0, outputTokens: 60 },
      }),
      turn({
        text: 'The release is on Friday.',
        usage: { inputTokens: 4300, cachedInputTokens: 3968, outputTokens: 12 },
      }),
    );
    const run = await forge(['run', '--json', '--model', 'openai:gpt-5.1', 'When is the release?']);
    expect(run.code).toBe(0);
    const completed = run.stdout
      .trim()
      .split('\n')
      .map(
        (line) =>
          (JSON.parse(line) as { event: { type: string; cost?: { total: number }; cacheHitRatio?: number } }).event,
      )
      .find((event) => event.type === 'run.completed');
    const first = costOf(usage(4000, 0, 60));
    const second = costOf(usage(4300, 3968, 12));
    const total = (first?.total ?? 0) + (second?.total ?? 0);
    // run.completed in --json carries the total and the cache-hit ratio
    expect(completed?.cost?.total).toBeCloseTo(total, 12);
    expect(completed?.cacheHitRatio).toBeCloseTo(3968 / 8300, 12);

    const json = JSON.parse((await forge(['inspect', '--last', '--json'])).stdout) as InspectReport;
    const [report] = json.runs;
    expect(report?.budget.map((row) => [row.reportedInputTokens, row.cachedInputTokens])).toEqual([
      [4000, 0],
      [4300, 3968],
    ]);
    expect(report?.budget[0]?.cost?.total).toBeCloseTo(first?.total ?? 0, 12);
    expect(report?.budget[1]?.cost?.cachedInput).toBeCloseTo((3968 * 0.125) / 1e6, 12);
    expect(report?.cost?.total).toBeCloseTo(total, 12);
    expect(report?.prices).toMatchObject({
      inputPerMillion: 1.25,
      cachedInputPerMillion: 0.125,
      outputPerMillion: 10,
      source: 'table',
      asOf: '2026-12-01',
    });
    expect(report?.unpricedSteps).toBe(0);

    const text = (await forge(['inspect', '--last'])).stdout;
    const { header, rows } = budgetTable(text, 2);
    expect(header.slice(-6)).toEqual(['estimate', 'input', 'cached', 'cost', 'error', 'note']);
    // 4,000 fresh at $1.25 + 60 out at $10 = $0.0056; 332 fresh + 3,968 cached at $0.125 + 12 out = $0.000031…
    expect(rows.map((row) => row.slice(-3, -1))).toEqual([
      ['0', '$0.0056'],
      ['3,968', '$0.00103'],
    ]);
    expect(text).toContain('  usage        input 8,300 · cached 3,968 (48%) · output 72 · reasoning 0\n');
    expect(text).toContain('  cost         $0.00663 (fresh input $0.00541 · cached $0.000496 · output $0.00072)\n');
    expect(text).toContain(
      '  prices       $1.25 input · $0.125 cached · $10 output per 1M tokens (capability table, as of 2026-12-01)\n',
    );
  });

  it('adds up the runs of a session: totals, cache-hit ratio and cost across turns', async () => {
    provider.enqueue(turn({ text: 'One.', usage: { inputTokens: 2000, cachedInputTokens: 0, outputTokens: 5 } }));
    const first = await forge(['run', '--model', 'openai:gpt-5.1', 'First question']);
    const sessionId = /session: (\S+)/.exec(first.stderr)?.[1] ?? '';
    expect(sessionId).not.toBe('');
    provider.enqueue(turn({ text: 'Two.', usage: { inputTokens: 2100, cachedInputTokens: 1920, outputTokens: 5 } }));
    expect((await forge(['run', '--model', 'openai:gpt-5.1', '--resume', sessionId, 'Second question'])).code).toBe(0);

    const report = JSON.parse((await forge(['inspect', sessionId, '--json'])).stdout) as InspectReport;
    expect(report.runs).toHaveLength(2);
    const expected = (costOf(usage(2000, 0, 5))?.total ?? 0) + (costOf(usage(2100, 1920, 5))?.total ?? 0);
    expect(report.totals?.cost?.total).toBeCloseTo(expected, 12);
    expect(report.totals?.usage).toMatchObject({ inputTokens: 4100, cacheReadTokens: 1920, outputTokens: 10 });
    expect(report.totals?.cacheHitRatio).toBeCloseTo(1920 / 4100, 12);
    const text = (await forge(['inspect', sessionId])).stdout;
    expect(text).toMatch(
      /^ {2}totals {7}input 4,100 · cached 1,920 \(47%\) · output 10 · reasoning 0; cost \$0\.00\d+ \(/m,
    );
  });
});
