import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ContextReport } from '@forge/core/budget';
import { ScriptedModel } from '@forge/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, temporaryDirectory } from '../test-support/cli-harness.js';

/* `forge context`: the budget of the next request, without sending it, for a new conversation or a stored session. */

let workspace: Awaited<ReturnType<typeof temporaryDirectory>>;
let forgeHome: Awaited<ReturnType<typeof temporaryDirectory>>;

beforeEach(async () => {
  workspace = await temporaryDirectory('forge-context-ws-');
  forgeHome = await temporaryDirectory('forge-context-home-');
  await writeFile(path.join(workspace.path, 'README.md'), '# Demo\n\nA small workspace for the context command.\n');
});

afterEach(async () => {
  await workspace.remove();
  await forgeHome.remove();
});

const forge = (args: readonly string[], env: Record<string, string> = {}, models?: Record<string, ScriptedModel>) =>
  runCli(args, {
    cwd: workspace.path,
    env: { FORGE_HOME: forgeHome.path, ...env },
    ...(models === undefined ? {} : { models }),
  });

async function reportOf(
  args: readonly string[],
  env: Record<string, string> = {},
  models?: Record<string, ScriptedModel>,
): Promise<ContextReport> {
  const outcome = await forge(['context', '--json', ...args], env, models);
  expect(outcome.stderr).toBe('');
  expect(outcome.code).toBe(0);
  return JSON.parse(outcome.stdout) as ContextReport;
}

describe('forge context', () => {
  it('reports the budget of a new conversation: window and source, categories, tool schemas, nothing retained', async () => {
    const report = await reportOf([]);
    expect(report.model).toEqual({ provider: 'scripted', modelId: 'demo' });
    expect(report.budget).toMatchObject({
      mode: 'compact',
      decision: 'ok',
      contextWindowTokens: 128_000,
      windowSource: 'table',
      reservedTokens: 8192,
    });
    expect(report.budget.estimate.categories.instructions).toBeGreaterThan(0);
    expect(report.budget.estimate.categories.toolSchemas).toBeGreaterThan(0);
    expect(report.retainedMessages).toBe(0);
    expect(report.toolGroups?.map((group) => group.name)).toEqual(['built-in']);
    expect(report.toolGroups?.[0]?.tokens).toBe(report.budget.estimate.categories.toolSchemas);
    const sum = Object.values(report.budget.estimate.categories).reduce((total, value) => total + value, 0);
    expect(sum).toBe(report.budget.estimate.tokens);
  });

  it('prints the same report as aligned text', async () => {
    const outcome = await forge(['context']);
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toContain('Context for scripted:demo');
    expect(outcome.stdout).toMatch(/Window\s+128,000 tokens — from the capability table/);
    expect(outcome.stdout).toMatch(/Tool schemas\s+[\d,]+/);
    expect(outcome.stdout).toMatch(/Reserve\s+8,192 = max\(output 4,096, buffer 8,192\)/);
    expect(outcome.stdout).not.toContain('\u001b[');
  });

  it('counts the recent view of a stored session with --last, and follows the configured mode', async () => {
    const run = await forge(['run', 'Summarise the workspace']);
    expect(run.code).toBe(0);
    const report = await reportOf(['--last'], { FORGE_CONTEXT_MODE: 'off' });
    expect(report.retainedMessages).toBeGreaterThan(1);
    expect(report.sessionMessages).toBe(report.retainedMessages);
    expect(report.budget.estimate.categories.history).toBeGreaterThan(0);
    expect(report.budget).toMatchObject({ mode: 'off', decision: 'off' });
  });

  it("prices the next request of a priced model, from the table or from the user's configuration; an unpriced model in tokens only", async () => {
    const env = { OPENAI_API_KEY: 'sk-test' };
    const report = await reportOf(['--model', 'openai:gpt-5.1'], env);
    expect(report.nextRequestCost?.prices).toMatchObject({
      inputPerMillion: 1.25,
      cachedInputPerMillion: 0.125,
      outputPerMillion: 10,
      source: 'table',
      asOf: '2026-12-01',
    });
    const tokens = report.budget.estimate.tokens;
    expect(report.nextRequestCost?.inputTokens).toBe(tokens);
    expect(report.nextRequestCost?.coldInput).toBeCloseTo((tokens * 1.25) / 1e6, 12);
    const text = await forge(['context', '--model', 'openai:gpt-5.1'], env);
    expect(text.stdout).toContain('Prices           $1.25 input · $0.125 cached · $10 output per 1M tokens');
    expect(text.stdout).toMatch(/Next request {5}input \$0\.\d+ with a cold cache/);

    await writeFile(
      path.join(forgeHome.path, 'config.json'),
      JSON.stringify({
        schemaVersion: 1,
        prices: {
          'openai:gpt-5.1': { inputPerMillion: 1, cachedInputPerMillion: 0.1, outputPerMillion: 8, note: 'our rate' },
        },
      }),
    );
    const configured = await reportOf(['--model', 'openai:gpt-5.1'], env);
    expect(configured.nextRequestCost?.prices).toEqual({
      currency: 'USD',
      inputPerMillion: 1,
      cachedInputPerMillion: 0.1,
      outputPerMillion: 8,
      note: 'our rate',
      source: 'config',
      reference: path.join(forgeHome.path, 'config.json'),
    });
    const configuredText = await forge(['context', '--model', 'openai:gpt-5.1'], env);
    expect(configuredText.stdout).toContain(`from the configuration, ${path.join(forgeHome.path, 'config.json')}`);
    expect(configuredText.stdout).toContain('our rate');

    const unpriced = await reportOf([]);
    expect(unpriced.nextRequestCost).toBeUndefined();
    // The default model is the scripted demo: nothing bills it, so no prices are asked for.
    expect((await forge(['context'])).stdout).toContain('none: a scripted model is not billed by any provider');
  });

  it('says when the next request could not be sent at all', async () => {
    const tiny = new ScriptedModel([], {
      modelId: 'tiny',
      capabilities: { contextWindowTokens: 9000, source: 'config' },
    });
    const report = await reportOf(['--model', 'test:tiny'], {}, { tiny });
    expect(report.budget).toMatchObject({ decision: 'limit_reached', windowSource: 'config' });
    const outcome = await forge(['context', '--model', 'test:tiny'], {}, { tiny });
    expect(outcome.stdout).toContain('does not fit: the next step would stop before sending');
  });
});
