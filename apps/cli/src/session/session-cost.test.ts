import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sessionIds, sessionTotals } from '@forge/persistence';
import { startLoopbackProvider, turn, type LoopbackProvider } from '@forge/loopback-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, temporaryDirectory } from '../test-support/cli-harness.js';
import { sessionCostFromTraces, sessionCostSoFar } from './session-cost.js';

/*
 * The footer, `/context` and `forge context` read a session's cost from the running totals its
 * index keeps; `forge inspect` adds up the traces. Runs through the real OpenAI adapter over HTTP
 * to the loopback server, with cached input, must give both the same figures.
 */

let workspace: Awaited<ReturnType<typeof temporaryDirectory>>;
let forgeHome: Awaited<ReturnType<typeof temporaryDirectory>>;
let provider: LoopbackProvider;

beforeAll(async () => {
  workspace = await temporaryDirectory('forge-session-cost-');
  forgeHome = await temporaryDirectory('forge-session-cost-home-');
  await writeFile(path.join(workspace.path, 'NOTES.md'), 'The release is on Friday.\n');
  provider = await startLoopbackProvider();
});

afterAll(async () => {
  await provider.close();
  await workspace.remove();
  await forgeHome.remove();
});

const forge = (args: readonly string[]) =>
  runCli(args, {
    cwd: workspace.path,
    env: { FORGE_HOME: forgeHome.path, OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: provider.baseURL },
  });

describe("a session's cost so far", () => {
  it('is the same from the running totals as from the traces forge inspect reads', async () => {
    provider.enqueue(
      turn({
        toolCalls: [{ name: 'read_file', arguments: { path: 'NOTES.md' }, callId: 'call_notes' }],
        usage: { inputTokens: 4000, cachedInputTokens: 0, outputTokens: 60 },
      }),
      turn({
        text: 'The release is on Friday.',
        usage: { inputTokens: 4300, cachedInputTokens: 3968, outputTokens: 12 },
      }),
      turn({ text: 'Still Friday.', usage: { inputTokens: 4500, cachedInputTokens: 4200, outputTokens: 5 } }),
    );
    expect((await forge(['run', '--model', 'openai:gpt-5.1', 'When is the release?'])).code).toBe(0);
    expect((await forge(['run', '--last', '--model', 'openai:gpt-5.1', 'Sure?'])).code).toBe(0);
    const [id] = await sessionIds(forgeHome.path);
    // Both runs recorded their cost, so nothing here is read from a trace.
    expect(await sessionTotals(forgeHome.path, id as string)).toMatchObject({ runs: 2, legacyRuns: 0 });
    const fromTotals = await sessionCostSoFar(forgeHome.path, id as string);
    const fromTraces = await sessionCostFromTraces(forgeHome.path, id as string);
    expect(fromTotals).toBeDefined();
    expect(fromTotals?.inputTokens).toBe(4000 + 4300 + 4500);
    expect(fromTotals?.cachedTokens).toBe(3968 + 4200);
    expect(fromTotals?.unpricedSteps).toBe(fromTraces?.unpricedSteps);
    expect(fromTotals?.inputTokens).toBe(fromTraces?.inputTokens);
    expect(fromTotals?.cachedTokens).toBe(fromTraces?.cachedTokens);
    for (const part of ['freshInput', 'cachedInput', 'cacheWrite', 'output', 'total'] as const)
      expect(fromTotals?.cost[part]).toBeCloseTo(fromTraces?.cost[part] ?? Number.NaN, 12);
    expect(fromTotals?.cost.total).toBeGreaterThan(0);
  });
});
