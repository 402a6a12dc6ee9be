import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startLoopbackProvider, turn, type LoopbackProvider } from '@forge/loopback-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useBundle, userSetup } from './support/bundle.js';

/*
 * Token calibration that one wrong usage report cannot poison: a provider (or a gateway) that
 * reports an impossible input count once must not stop every later run of that model, and a
 * refusal that a learned calibration causes says so and how to reset it.
 */

const fixture = useBundle('bundle-calibration');
let provider: LoopbackProvider;

beforeAll(async () => {
  provider = await startLoopbackProvider();
});

afterAll(async () => {
  await provider.close();
});

describe('calibration through the bundled forge and the loopback server', () => {
  it('a 1e15 usage report is ignored with a notice, and the next run of that model is still sent', async () => {
    const user = await userSetup(fixture, 'calibration-poison');
    const env = { OPENAI_API_KEY: 'sk-calibration-test', OPENAI_BASE_URL: provider.baseURL };
    provider.enqueue(turn({ text: 'First answer.', usage: { inputTokens: 1e15, outputTokens: 3 } }));
    const first = await user.forge(['run', '--model', 'openai:gpt-5', 'Say something.'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('ignored an impossible usage report for openai:gpt-5');
    // Priced as one full window at most ($0.50 at gpt-5's input price), never as the billions the report implies.
    const inspected = await user.forge(['inspect', '--last', '--json'], env);
    expect(inspected.code, inspected.stderr).toBe(0);
    const costs = [...inspected.stdout.matchAll(/"cost":\{[^}]*"total":([\d.e+-]+)/g)].map((match) => Number(match[1]));
    expect(costs.length).toBeGreaterThan(0);
    expect(Math.max(...costs)).toBeLessThan(1);

    provider.enqueue(turn({ text: 'Second answer.', usage: { inputTokens: 900, outputTokens: 3 } }));
    const before = provider.requests.length;
    const second = await user.forge(['run', '--model', 'openai:gpt-5', 'Say something else.'], env);
    expect(second.stderr).not.toContain('does not fit');
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('Second answer.');
    expect(provider.requests.length).toBe(before + 1);
  });

  it('a calibration.json already holding a 1e15 sample does not stop a run', async () => {
    const user = await userSetup(fixture, 'calibration-stored-poison');
    await writeFile(
      path.join(user.forgeHome, 'calibration.json'),
      JSON.stringify({
        schemaVersion: 1,
        models: {
          'openai:gpt-5': {
            counter: 'o200k_base',
            updatedAt: new Date().toISOString(),
            samples: [[1000, 1e15]],
          },
        },
      }),
    );
    provider.enqueue(turn({ text: 'Still sent.', usage: { inputTokens: 900, outputTokens: 3 } }));
    const run = await user.forge(['run', '--model', 'openai:gpt-5', 'Hello.'], {
      OPENAI_API_KEY: 'sk-calibration-test',
      OPENAI_BASE_URL: provider.baseURL,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Still sent.');
    const listed = await user.forge(['models', 'list']);
    expect(listed.stdout).toMatch(/openai:gpt-5 .*1 impossible report ignored/);
  });

  it('a refusal caused by a learned calibration says so; forge models calibration reset lets the run through', async () => {
    const user = await userSetup(fixture, 'calibration-reset');
    const model = { name: 'tiny', baseURL: provider.baseURL, modelId: 'tiny-1', apiKeyVariable: 'TINY_KEY' };
    await user.writeConfig({ models: [{ ...model, contextWindowTokens: 1_000_000 }] });
    const measured = await user.forge(['context', '--model', 'compatible:tiny', '--json']);
    expect(measured.code, measured.stderr).toBe(0);
    const { estimate } = (JSON.parse(measured.stdout) as { budget: { estimate: { tokens: number } } }).budget;
    // Room for the raw estimate, but not for it × 3.5.
    const window = 2 * estimate.tokens + 2_000;
    await user.writeConfig({
      models: [{ ...model, contextWindowTokens: window, maxOutputTokens: 1_000 }],
      context: { bufferTokens: 200, reservedOutputTokens: 1_000 },
    });
    await writeFile(
      path.join(user.forgeHome, 'calibration.json'),
      JSON.stringify({
        schemaVersion: 1,
        models: {
          'compatible:tiny': { counter: 'conservative', updatedAt: new Date().toISOString(), samples: [[2000, 7000]] },
        },
      }),
    );
    const env = { TINY_KEY: 'tiny-key' };
    const before = provider.requests.length;
    const refused = await user.forge(['run', '--model', 'compatible:tiny', 'Hello.'], env);
    expect(refused.code).not.toBe(0);
    expect(provider.requests.length).toBe(before);
    expect(refused.stderr).toContain('These counts include a calibration × 3.5 learned from earlier usage reports');
    expect(refused.stderr).toContain('forge models calibration reset compatible:tiny');

    const reset = await user.forge(['models', 'calibration', 'reset', 'compatible:tiny']);
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toContain('forgot the recorded usage of compatible:tiny');
    const stored = JSON.parse(await readFile(path.join(user.forgeHome, 'calibration.json'), 'utf8')) as {
      models: Record<string, unknown>;
    };
    expect(stored.models).toEqual({});

    provider.enqueue(turn({ text: 'Sent after the reset.', usage: { inputTokens: estimate.tokens, outputTokens: 4 } }));
    const sent = await user.forge(['run', '--model', 'compatible:tiny', 'Hello.'], env);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toContain('Sent after the reset.');
  });
});
