import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import { loadConfig, projectConfigPath, userConfigPath } from './load-config.js';

let root: string;
let home: string;
let workspace: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'forge-config-prices-'));
  home = join(root, 'home');
  workspace = join(root, 'workspace');
  await mkdir(home, { recursive: true });
  await mkdir(join(workspace, '.forge'), { recursive: true });
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const write = (file: string, value: unknown) => writeFile(file, JSON.stringify(value, null, 2));
const load = () => loadConfig({ forgeHome: home, workspaceRoot: workspace, env: {} });
const negotiated = { inputPerMillion: 1, cachedInputPerMillion: 0.1, outputPerMillion: 8, asOf: '2026-11-30', note: 'negotiated rate' };

describe('prices in the configuration', () => {
  it('reads prices per model id from the user file, with provenance per id', async () => {
    await write(userConfigPath(home), { schemaVersion: 1, prices: { 'openai:gpt-5.1': negotiated, 'compatible:lab': { inputPerMillion: 0, outputPerMillion: 0 } } });
    const loaded = await load();
    expect(loaded.config.prices).toEqual({ 'openai:gpt-5.1': negotiated, 'compatible:lab': { inputPerMillion: 0, outputPerMillion: 0 } });
    expect(loaded.provenance['prices.openai:gpt-5.1']).toEqual({ source: 'user', file: loaded.files.user });
    expect(loaded.warnings).toEqual([]);
  });

  it('ignores prices in a project file and says why: a repository must not set what your session costs', async () => {
    await write(userConfigPath(home), { schemaVersion: 1, prices: { 'openai:gpt-5.1': negotiated } });
    await write(projectConfigPath(workspace), { schemaVersion: 1, prices: { 'openai:gpt-5.1': { inputPerMillion: 0, outputPerMillion: 0 }, 'openai:gpt-5': { inputPerMillion: 0, outputPerMillion: 0 } } });
    const loaded = await load();
    expect(loaded.config.prices).toEqual({ 'openai:gpt-5.1': negotiated });
    expect(loaded.warnings).toEqual([
      `${loaded.files.project}: prices is ignored: prices may be set only in your user configuration, not by a project (they are a fact of your account, not of a repository).`,
    ]);
  });

  it('refuses a negative price, a missing rate, an unknown key and a model id without a provider, naming the path', async () => {
    await write(userConfigPath(home), {
      schemaVersion: 1,
      prices: { 'openai:gpt-5.1': { inputPerMillion: -1, outputPerMillion: 1 }, 'deepseek:x': { inputPerMillion: 1 }, 'openai:y': { inputPerMillion: 1, outputPerMillion: 1, cachedPerMillion: 1 }, gpt: { inputPerMillion: 1, outputPerMillion: 1 } },
    });
    const error = await load().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(ConfigError.isInstance(error)).toBe(true);
    const paths = (error as ConfigError).issues.map((issue) => issue.path);
    expect(paths).toEqual(expect.arrayContaining(['prices.openai:gpt-5.1.inputPerMillion', 'prices.deepseek:x.outputPerMillion', 'prices.openai:y.cachedPerMillion', 'prices.gpt']));
  });
});
