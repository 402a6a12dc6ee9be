import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ScriptedModel } from '@forge/core/testing';
import { loadSuite } from '@forge/evals';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, temporaryDirectory } from '../test-support/cli-harness.js';

/** A fixture a user writes from docs/evals.md, without touching code. */
const userFixture = {
  formatVersion: 1,
  id: 'user-fixture',
  title: 'A user-written fixture',
  long: true,
  model: { contextWindowTokens: 9000 },
  context: { recentTailTokens: 1200 },
  files: [{ path: 'src/app.ts', content: 'export const PORT = 8080; // fact:app.port=8080\n' }],
  constraints: [{ id: 'tabs', topic: 'indent', value: 'tabs', text: 'Indent every file with tabs, not spaces.' }],
  turns: [
    {
      user: 'Which port does src/app.ts use? Answer as "fact app.port = <value>".',
      states: ['tabs'],
      steps: [{ op: 'learn', path: 'src/app.ts', key: 'app.port' }],
    },
    { filler: 12, tokensPerTurn: 700 },
    {
      user: 'How do we indent? Answer as "constraint indent = <value>".',
      steps: [{ op: 'probe', topic: 'indent', expect: 'tabs' }],
    },
  ],
};

const MODES = 'warn,compact:forge-state,baseline:sliding-window';

let directory: Awaited<ReturnType<typeof temporaryDirectory>>;
beforeEach(async () => {
  directory = await temporaryDirectory('forge-eval-');
  await writeFile(path.join(directory.path, 'user-fixture.json'), JSON.stringify(userFixture, null, 2));
});
afterEach(async () => {
  await directory.remove();
});

interface JsonReport {
  readonly results: readonly Record<string, unknown>[];
  readonly gates: readonly {
    readonly gate: string;
    readonly mode: string;
    readonly status: string;
    readonly detail: string;
    readonly advisory?: boolean;
  }[];
  readonly errors: readonly unknown[];
}

describe('forge eval', () => {
  it(
    'runs the smoke suite offline and its gates pass, the priced ones included and enforced (warn and the forge-state compaction, judged against full history)',
    { timeout: 90_000 },
    async () => {
      const builtIn = await runCli(
        ['eval', '--suite', 'smoke', '--mode', 'warn,compact:forge-state,baseline:full-history', '--json'],
        { cwd: directory.path },
      );
      const report = JSON.parse(builtIn.stdout) as JsonReport;
      expect(report.errors).toEqual([]);
      expect(builtIn.stderr).not.toContain('gate failed');
      expect(builtIn.code).toBe(0);
      const compactGates = report.gates.filter((gate) => gate.mode === 'compact:forge-state');
      // Where the whole history fits, the default sends exactly what it sends (the context tools come only once the session is
      // half full), so it costs no more; the priced gates block like every other one.
      expect(compactGates.find((gate) => gate.gate === 'cost-vs-full-history')).toMatchObject({
        status: 'pass',
        detail: '',
      });
      expect(compactGates.filter((gate) => gate.advisory === true)).toEqual([]);
      // Only the whole history runs as a baseline here, and it fails the long fixtures: there is no passing baseline to price the
      // default against, nor one that played them to the end to count its working-set re-reads against.
      const againstBaselines = new Set(['cost-vs-baselines', 'working-set-rereads-vs-baselines']);
      const priceable = compactGates.filter((gate) => !againstBaselines.has(gate.gate));
      expect(priceable.map((gate) => gate.status)).toEqual(priceable.map(() => 'pass'));
      expect(compactGates.length).toBe(12);
      expect(new Set(report.gates.filter((gate) => gate.status === 'not-evaluated').map((gate) => gate.gate))).toEqual(
        againstBaselines,
      );
      for (const result of report.results)
        expect(result).toMatchObject({
          cost: { sheet: 'openai' },
          cacheHitRatio: expect.any(Number),
          cachedInputTokens: expect.any(Number),
        });
      expect(report.results.every((result) => (result['cost'] as { totalUsd: number }).totalUsd > 0)).toBe(true);

      // A fixture written by a user in a directory of their own gives the same metrics.
      const user = await runCli(['eval', '--fixtures', directory.path, '--mode', MODES, '--json'], {
        cwd: directory.path,
      });
      const userReport = JSON.parse(user.stdout) as JsonReport;
      expect(userReport.results.map((result) => result['mode'])).toEqual(MODES.split(','));
      const keys = (result: Record<string, unknown> | undefined) => Object.keys(result ?? {}).sort();
      for (const result of userReport.results) expect(keys(result)).toEqual(keys(report.results[0]));
      const byMode = new Map(userReport.results.map((result) => [result['mode'], result]));
      expect(byMode.get('compact:forge-state')?.['recall']).toEqual({ correct: 1, total: 1 });
      expect(byMode.get('baseline:sliding-window')?.['recall']).toEqual({ correct: 0, total: 1 });
    },
  );

  it('exits 1 and names the gate that failed; --report writes Markdown, a self-contained HTML page and JSON', async () => {
    const gates = path.join(directory.path, 'gates.json');
    await writeFile(gates, JSON.stringify({ minInputReduction: 0.99, candidates: ['*'] }));
    const reportDirectory = path.join(directory.path, 'report');
    const outcome = await runCli(
      ['eval', '--fixtures', directory.path, '--mode', 'warn,compact', '--gates', gates, '--report', reportDirectory],
      {
        cwd: directory.path,
        env: { NO_COLOR: '1' },
      },
    );
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toMatch(/forge: gate failed: input-reduction \[compact:forge-state\]: .* needs ≥ 99\.0 %/);
    expect(outcome.stdout).toContain('FAIL  input-reduction [compact:forge-state]');
    expect(outcome.stdout).toContain('1 fixtures × 4 modes');
    expect(outcome.stdout).toContain('FAIL  input-reduction [compact:provider-native]');
    expect(outcome.stdout).not.toContain('\u001b[');
    expect(outcome.stderr).toMatch(/forge eval: \[1\/4\] user-fixture × \S+ done\n[^]*forge eval: \[4\/4\]/);

    const html = await readFile(path.join(reportDirectory, 'report.html'), 'utf8');
    expect(html).toContain('<svg');
    expect(html).not.toMatch(/<script|(?:src|href)="https?:/);
    expect(await readFile(path.join(reportDirectory, 'report.md'), 'utf8')).toContain(
      '| input-reduction | compact:forge-state | **FAIL** |',
    );
    const json = JSON.parse(await readFile(path.join(reportDirectory, 'report.json'), 'utf8')) as JsonReport;
    expect(json.gates.some((gate) => gate.gate === 'input-reduction' && gate.status === 'fail')).toBe(true);
  });

  it('prices the runs with the sheet --prices names: a built-in one or a JSON file', { timeout: 90_000 }, async () => {
    await mkdir(path.join(directory.path, 'sheets'));
    const file = path.join(directory.path, 'sheets', 'prices.json');
    await writeFile(file, JSON.stringify({ name: 'negotiated', input: 1, cached: 0.1, output: 8 }));
    const run = async (sheet: string) => {
      const outcome = await runCli(
        ['eval', '--fixtures', directory.path, '--mode', 'compact:forge-state', '--prices', sheet, '--json'],
        { cwd: directory.path },
      );
      const report = JSON.parse(outcome.stdout) as JsonReport & { readonly priceSheet: { readonly name: string } };
      return { report, cost: report.results[0]?.['cost'] as { sheet: string; totalUsd: number } | undefined };
    };
    const openai = await run('openai');
    const deepseek = await run('deepseek');
    const negotiated = await run('sheets/prices.json');
    expect([openai.report.priceSheet.name, deepseek.report.priceSheet.name, negotiated.report.priceSheet.name]).toEqual(
      ['openai', 'deepseek', 'negotiated'],
    );
    expect(deepseek.cost?.sheet).toBe('deepseek');
    expect(deepseek.cost?.totalUsd).toBeLessThan(openai.cost?.totalUsd ?? 0);
    expect(negotiated.cost?.totalUsd).toBeLessThan(openai.cost?.totalUsd ?? 0);
    const text = await runCli(
      ['eval', '--fixtures', directory.path, '--mode', 'compact:forge-state', '--prices', 'deepseek'],
      { cwd: directory.path, env: { NO_COLOR: '1' } },
    );
    expect(text.stdout).toMatch(
      /prices deepseek \(deepseek:deepseek-flash capability table, DeepSeek prompt cache \(approximate\)\): \$0\.3 input · \$0\.006 cached · \$1\.2 output per 1M tokens/,
    );
    expect(text.stdout).toMatch(/cached +cost/);
  });

  it(
    "prices the runs at Anthropic's sheet with --prices anthropic: cache writes at their premium",
    { timeout: 90_000 },
    async () => {
      const outcome = await runCli(
        ['eval', '--fixtures', directory.path, '--mode', 'compact:forge-state', '--prices', 'anthropic'],
        { cwd: directory.path, env: { NO_COLOR: '1' } },
      );
      expect(outcome.stdout).toMatch(
        /prices anthropic \(anthropic:claude-sonnet-4-6 capability table \(5m cache writes\), Anthropic prompt cache at the adapter's breakpoints\): \$3 input · \$0\.3 cached · \$3\.75 cache write · \$15 output per 1M tokens/,
      );
      const json = await runCli(
        ['eval', '--fixtures', directory.path, '--mode', 'compact:forge-state', '--prices', 'anthropic', '--json'],
        { cwd: directory.path },
      );
      const report = JSON.parse(json.stdout) as JsonReport & {
        readonly priceSheet: { readonly name: string; readonly promptCache: { readonly minimumTokens: number } };
      };
      expect(report.priceSheet).toMatchObject({ name: 'anthropic', promptCache: { minimumTokens: 2048 } });
      expect(report.results[0]?.['cost']).toMatchObject({ sheet: 'anthropic' });
    },
  );

  it(
    'plays every agent side by side with --agent all, says which agent played, and gates each',
    { timeout: 90_000 },
    async () => {
      const outcome = await runCli(
        ['eval', '--fixtures', directory.path, '--mode', 'warn,compact:forge-state', '--agent', 'all'],
        { cwd: directory.path, env: { NO_COLOR: '1' } },
      );
      expect(outcome.stdout).toContain('agents cooperative, no-notes, sloppy: 1 fixtures × 2 modes × 3 agents');
      expect(outcome.stdout).toContain('no-notes: never calls checkpoint_note or request_compaction');
      for (const agent of ['cooperative', 'no-notes', 'sloppy'])
        expect(outcome.stdout).toMatch(new RegExp(`pass  recall \\[compact:forge-state, ${agent}\\] 100\\.0 %`));
      const json = await runCli(
        ['eval', '--fixtures', directory.path, '--mode', 'compact:forge-state', '--agent', 'no-notes,sloppy', '--json'],
        { cwd: directory.path },
      );
      const report = JSON.parse(json.stdout) as JsonReport & { readonly agents: readonly string[] };
      expect(report.agents).toEqual(['no-notes', 'sloppy']);
      expect(report.results.map((result) => result['agent'])).toEqual(['no-notes', 'sloppy']);
      // The no-notes agent never calls the context tools; the checkpoint still keeps the user's rule.
      expect(report.results[0]?.['recall']).toEqual({ correct: 1, total: 1 });
    },
  );

  it('plays the same fixtures with a model from the registry under --live', async () => {
    const quiet = { ...userFixture, id: 'live', turns: [{ user: 'Say hello.' }] };
    await writeFile(path.join(directory.path, 'user-fixture.json'), JSON.stringify(quiet));
    const model = new ScriptedModel([{ text: 'Hello.', usage: { inputTokens: 900, outputTokens: 3 } }]);
    const outcome = await runCli(
      ['eval', '--fixtures', directory.path, '--mode', 'warn', '--live', '--model', 'test:hello', '--json'],
      {
        cwd: directory.path,
        models: { hello: model },
      },
    );
    const report = JSON.parse(outcome.stdout) as JsonReport & {
      readonly model: string;
      readonly agents: readonly string[];
    };
    expect(report.model).toBe('scripted:scripted-model (live)');
    expect(report.agents).toEqual(['live']);
    expect(report.results[0]?.['providerInputTokens']).toBe(900);
    expect(model.requests).toHaveLength(1);
  });

  it(
    '--except leaves out the fixtures of the suites it names, so CI plays no fixture twice',
    { timeout: 90_000 },
    async () => {
      const rest = await runCli(['eval', '--suite', 'full', '--except', 'smoke,realistic', '--mode', 'off', '--json'], {
        cwd: directory.path,
      });
      const report = JSON.parse(rest.stdout) as JsonReport;
      const played = new Set(report.results.map((result) => result['fixture']));
      const smoke = await loadSuite('smoke');
      const realistic = await loadSuite('realistic');
      const full = await loadSuite('full');
      const expected = full
        .filter((item) => !item.fixture.suites.includes('smoke') && !item.fixture.suites.includes('realistic'))
        .map((item) => item.fixture.id);
      expect([...played].sort()).toEqual(expected.sort());
      expect(expected.length).toBeGreaterThan(0);
      for (const left of [...smoke, ...realistic]) expect(played.has(left.fixture.id)).toBe(false);
    },
  );

  it('rejects wrong usage with exit 2 and says what to do', async () => {
    const cases: [string[], RegExp][] = [
      [['eval', '--suite', 'nightly'], /unknown suite "nightly"; the built-in suites are smoke, realistic, full/],
      [['eval', '--suite', 'full', '--except', 'nightly'], /unknown suite "nightly"/],
      [['eval', '--suite', 'smoke', '--except', 'full'], /--except full leaves no fixture of suite smoke/],
      [['eval', '--fixtures', directory.path, '--except', 'smoke'], /--except .* does not apply to --fixtures/],
      [
        ['eval', '--fixtures', directory.path, '--agent', 'lazy'],
        /Unknown agent "lazy"; choose from cooperative, no-notes, sloppy, all/,
      ],
      [
        ['eval', '--live', '--model', 'openai:gpt-5', '--agent', 'no-notes'],
        /--agent chooses the offline policy agent/,
      ],
      [['eval', '--model', 'openai:gpt-5'], /--model is used by forge eval only with --live/],
      [['eval', '--live'], /--live needs a model/],
      [['eval', '--fixtures', directory.path, '--mode', 'turbo'], /Unknown mode "turbo"; choose from off, warn/],
      [
        ['eval', '--fixtures', directory.path, '--prices', 'mistral'],
        /--prices mistral: not openai or deepseek or anthropic, and the file .*mistral cannot be read \(no such file\)/,
      ],
      [
        ['eval', '--fixtures', directory.path, '--prices', 'sheets/bad-prices.json'],
        /--prices .*bad-prices\.json is not a valid price sheet: input: must be ≥ 0; output: must be a number of US dollars per million tokens; \(file\): Unrecognized key: "cache"/,
      ],
    ];
    await mkdir(path.join(directory.path, 'sheets'));
    await writeFile(path.join(directory.path, 'sheets', 'bad-prices.json'), JSON.stringify({ input: -1, cache: 0.1 }));
    for (const [args, message] of cases) {
      const outcome = await runCli(args, { cwd: directory.path });
      expect(outcome.code, args.join(' ')).toBe(2);
      expect(outcome.stderr).toMatch(message);
    }
    await writeFile(path.join(directory.path, 'user-fixture.json'), JSON.stringify({ ...userFixture, turns: [] }));
    const invalid = await runCli(['eval', '--fixtures', directory.path], { cwd: directory.path });
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/user-fixture\.json is not valid \(format version 1\): turns: .*docs\/evals\.md/);
  });
});
