import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import type { PriceSheet } from '@forge/core';
import { ScriptedModel, type ScriptedStep } from '@forge/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../main.js';
import { createTestIo, temporaryDirectory, waitFor } from '../test-support/cli-harness.js';

/* What the REPL says a session costs: its footer and /context, for a priced model, across restarts. */

let workspace: Awaited<ReturnType<typeof temporaryDirectory>>;
let forgeHome: Awaited<ReturnType<typeof temporaryDirectory>>;

beforeEach(async () => {
  workspace = await temporaryDirectory('forge-repl-cost-');
  forgeHome = await temporaryDirectory('forge-repl-cost-home-');
  await writeFile(path.join(workspace.path, 'notes.txt'), 'alpha\n');
});

afterEach(async () => {
  await workspace.remove();
  await forgeHome.remove();
});

const prices: PriceSheet = {
  currency: 'USD',
  inputPerMillion: 2,
  cachedInputPerMillion: 0.5,
  outputPerMillion: 10,
  source: 'config',
  reference: 'test',
};

function startRepl(steps: readonly ScriptedStep[], args: readonly string[] = []) {
  const model = new ScriptedModel(steps, { provider: 'test', modelId: 'priced', capabilities: { prices } });
  const test = createTestIo({
    cwd: workspace.path,
    env: { FORGE_HOME: forgeHome.path, NO_COLOR: '1' },
    models: { priced: model },
  });
  test.stdout.isTTY = true;
  const exited = main(['node', 'forge', '--model', 'test:priced', ...args], test.io);
  return { test, exited, output: () => test.stdout.text, type: (text: string) => test.stdin.write(text) };
}

/** The footer's `next ~$…` and the warm input price `/context` prints right after it are the same figure. */
async function expectFooterPriceIsContextPrice(repl: ReturnType<typeof startRepl>): Promise<void> {
  const footer = [...repl.output().matchAll(/ next ~(\$[\d.]+)\n/g)].at(-1)?.[1];
  const before = repl.output().length;
  repl.type('/context\n');
  await waitFor(repl.output, (text) => text.slice(before).includes('Next request'), 20_000);
  const line = /Next request {5}input (\$[\d.]+) with a cold cache(?:, (\$[\d.]+) if)?/.exec(
    repl.output().slice(before),
  );
  expect(footer).toBeDefined();
  expect(line?.[2] ?? line?.[1]).toBe(footer);
}

describe('the REPL shows what the session costs', () => {
  it("puts the session's cost so far and the next request's in the footer and /context, and remembers it on resume", async () => {
    // 10,000 in ($0.02) + 500 out ($0.005), then 10,600 in of which 10,000 cached ($0.0012 + $0.005) + 100 out ($0.001)
    const repl = startRepl([
      { text: 'One.', usage: { inputTokens: 10_000, cacheReadTokens: 0, outputTokens: 500 } },
      { text: 'Two.', usage: { inputTokens: 10_600, cacheReadTokens: 10_000, outputTokens: 100 } },
    ]);
    await waitFor(repl.output, (text) => text.includes('Type a request'), 20_000);
    expect(repl.output()).not.toContain('so far');
    repl.type('first\n');
    await waitFor(repl.output, (text) => text.includes('One.'), 20_000);
    await waitFor(repl.output, (text) => text.includes('· $0.025 so far · next ~$'), 20_000);
    await expectFooterPriceIsContextPrice(repl);
    repl.type('second\n');
    await waitFor(repl.output, (text) => text.includes('Two.'), 20_000);
    await waitFor(repl.output, (text) => text.includes('· $0.0322 so far · next ~$'), 20_000);
    await expectFooterPriceIsContextPrice(repl);
    repl.type('/exit\n');
    expect(await repl.exited).toBe(0);
    expect(repl.output()).toContain('  Session so far   $0.0322, 49% of input cached\n');
    const id = /^Started session (session_[A-Za-z0-9_-]+)/m.exec(repl.output())?.[1] ?? '';

    const resumed = startRepl([], ['--resume', id]);
    await waitFor(resumed.output, (text) => text.includes('Type a request'), 20_000);
    resumed.type('/exit\n');
    expect(await resumed.exited).toBe(0);
    // Resumed, the cache is taken to be cold: the footer prices the next request so.
    expect(resumed.output()).toMatch(/· \$0\.0322 so far · next ~\$[\d.]+\n/);
  }, 60_000);
});
