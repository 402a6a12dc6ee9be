import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, open, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import { loadConfig, MAX_CONFIG_FILE_BYTES, projectConfigPath, userConfigPath } from './load-config.js';
import { mergeLayers } from './merge.js';

let root: string;
let home: string;
let workspace: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'forge-config-'));
  home = join(root, 'home');
  workspace = join(root, 'workspace');
  await mkdir(home, { recursive: true });
  await mkdir(join(workspace, '.forge'), { recursive: true });
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const writeUser = (value: unknown) =>
  writeFile(userConfigPath(home), typeof value === 'string' ? value : JSON.stringify(value, null, 2));
const writeProject = (value: unknown) =>
  writeFile(projectConfigPath(workspace), typeof value === 'string' ? value : JSON.stringify(value, null, 2));
const load = (options: { env?: Record<string, string>; flags?: Parameters<typeof loadConfig>[0]['flags'] } = {}) =>
  loadConfig({
    forgeHome: home,
    workspaceRoot: workspace,
    env: options.env ?? {},
    ...(options.flags === undefined ? {} : { flags: options.flags }),
  });

describe('loadConfig', () => {
  it('takes the compaction strategy, compactor model and native persistence from the user file, with provenance', async () => {
    await writeUser({
      schemaVersion: 1,
      context: {
        compaction: { strategy: 'model-structured', model: 'openai:gpt-5.1-mini' },
        providerNative: { persist: true },
      },
    });
    const loaded = await load();
    expect(loaded.config.compaction).toEqual({ strategy: 'model-structured', model: 'openai:gpt-5.1-mini' });
    expect(loaded.config.providerNative).toEqual({ persist: true });
    expect(loaded.provenance['context.compaction.model']).toEqual({ source: 'user', file: loaded.files.user });
    expect(loaded.provenance['context.providerNative.persist']).toEqual({ source: 'user', file: loaded.files.user });
    expect(loaded.warnings).toEqual([]);
  });

  it('refuses a compactor chosen by a project: the user values stay, and each refusal names the file, the key and what to do', async () => {
    await writeUser({ schemaVersion: 1, context: { compaction: { model: 'openai:gpt-5.1-mini' } } });
    await writeProject({
      schemaVersion: 1,
      context: {
        compaction: { strategy: 'model-structured', model: 'deepseek:deepseek-v4-pro' },
        providerNative: { persist: true },
      },
    });
    const loaded = await load();
    expect(loaded.config.compaction).toEqual({ strategy: 'forge-state', model: 'openai:gpt-5.1-mini' });
    expect(loaded.config.providerNative.persist).toBe(false);
    expect(loaded.provenance['context.compaction.model']).toEqual({ source: 'user', file: loaded.files.user });
    expect(loaded.warnings).toHaveLength(3);
    const [model, strategy, persist] = loaded.warnings;
    expect(model).toContain(`${loaded.files.project}: context.compaction.model is ignored`);
    expect(model).toContain('user configuration');
    expect(strategy).toContain(`${loaded.files.project}: context.compaction.strategy model-structured is not applied`);
    expect(strategy).toContain('a project may only choose forge-state');
    expect(persist).toContain(`${loaded.files.project}: context.providerNative.persist true is not applied`);
  });

  it('lets a project make compaction more careful: back to forge-state, persistence off', async () => {
    await writeUser({
      schemaVersion: 1,
      context: { compaction: { strategy: 'provider-native' }, providerNative: { persist: true } },
    });
    await writeProject({
      schemaVersion: 1,
      context: { compaction: { strategy: 'forge-state' }, providerNative: { persist: false } },
    });
    const loaded = await load();
    expect(loaded.config.compaction.strategy).toBe('forge-state');
    expect(loaded.config.providerNative.persist).toBe(false);
    expect(loaded.warnings).toEqual([]);
  });

  it('refuses model-structured without a compactor model, naming the key and where the strategy came from', async () => {
    await writeUser({ schemaVersion: 1, context: { compaction: { strategy: 'model-structured' } } });
    const error = await load().catch((caught: unknown) => caught);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('context.compaction.strategy: is model-structured');
    expect((error as Error).message).toContain(userConfigPath(home));
    expect((error as Error).message).toContain('context.compaction.model');
  });

  it('rejects an unknown strategy and a compactor that is not provider:model', async () => {
    await writeUser({ schemaVersion: 1, context: { compaction: { strategy: 'summarize', model: 'gpt' } } });
    const message = String(await load().catch((caught: unknown) => (caught as Error).message));
    expect(message).toContain('context.compaction.strategy');
    expect(message).toContain('context.compaction.model');
  });

  it('gives the documented defaults, each marked default, when no file exists', async () => {
    const loaded = await load();
    expect(loaded.config).toEqual({
      approval: { profile: 'ask' },
      secrets: { env: [] },
      sandbox: { mode: 'workspace-write', network: false, env: [] },
      models: [],
      mcpServers: [],
      prices: {},
      context: {
        mode: 'compact',
        reservedOutputTokens: 4096,
        bufferTokens: 8192,
        recentTailTokens: 12_000,
        summaryTargetTokens: 1200,
        warnAtRatio: 0.8,
        compactAtRatio: 0.85,
        compactTargetRatio: 0.5,
        protectedToolOutputRatio: 0.25,
        fallbackContextWindowTokens: 32_768,
      },
      contextTools: { checkpointNote: true, requestCompaction: true },
      compaction: { strategy: 'forge-state' },
      providerNative: { persist: false },
      workingSet: { maxTokens: 32_000, maxFileTokens: 10_000, maxFiles: 8 },
      anthropic: { cacheLifetime: '5m' },
      traces: { keepDays: 30, keepRuns: 200 },
    });
    expect(loaded.provenance['traces.keepDays']).toEqual({ source: 'default' });
    expect(loaded.provenance['context.bufferTokens']).toEqual({ source: 'default' });
    expect(loaded.provenance['anthropic.cacheLifetime']).toEqual({ source: 'default' });
    expect(loaded.provenance['context.workingSet.maxTokens']).toEqual({ source: 'default' });
    expect(loaded.provenance['context.compaction.strategy']).toEqual({ source: 'default' });
    expect(loaded.provenance['context.compactAtRatio']).toEqual({ source: 'default' });
    expect(loaded.provenance['context.checkpointNote']).toEqual({ source: 'default' });
    expect(loaded.warnings).toEqual([]);
    expect(loaded.files).toEqual({
      user: join(home, 'config.json'),
      project: join(workspace, '.forge', 'config.json'),
    });
  });

  it('layers user < project < environment < flags and records where each value came from', async () => {
    await writeUser({
      schemaVersion: 1,
      model: 'openai:gpt-5.1',
      context: { mode: 'compact', bufferTokens: 10_000, recentTailTokens: 20_000 },
      secrets: { env: ['GITHUB_TOKEN'] },
    });
    await writeProject({
      schemaVersion: 1,
      context: { mode: 'warn', recentTailTokens: 6000 },
      secrets: { env: ['DEPLOY_KEY'] },
    });
    const loaded = await load({
      env: { FORGE_CONTEXT_BUFFER_TOKENS: '12000', FORGE_MODEL: 'deepseek:deepseek-v4-pro' },
      flags: { context: { warnAtRatio: 0.9 } },
    });

    expect(loaded.config.model).toBe('deepseek:deepseek-v4-pro');
    expect(loaded.config.context).toMatchObject({
      mode: 'warn',
      bufferTokens: 12_000,
      recentTailTokens: 6000,
      warnAtRatio: 0.9,
      reservedOutputTokens: 4096,
    });
    expect(loaded.config.secrets.env).toEqual(['GITHUB_TOKEN', 'DEPLOY_KEY']);
    expect(loaded.provenance).toMatchObject({
      model: { source: 'env', variable: 'FORGE_MODEL' },
      'context.mode': { source: 'project', file: loaded.files.project },
      'context.recentTailTokens': { source: 'project', file: loaded.files.project },
      'context.bufferTokens': { source: 'env', variable: 'FORGE_CONTEXT_BUFFER_TOKENS' },
      'context.warnAtRatio': { source: 'flag' },
      'context.reservedOutputTokens': { source: 'default' },
    });
    expect(loaded.warnings).toEqual([]);
  });

  it('does not let a project raise a user ceiling or relax the user mode; it keeps the user value and warns', async () => {
    await writeUser({ schemaVersion: 1, context: { recentTailTokens: 8000, mode: 'warn' } });
    await writeProject({
      schemaVersion: 1,
      context: { recentTailTokens: 50_000, mode: 'off', bufferTokens: 100, warnAtRatio: 0.95 },
      approval: { profile: 'workspace-auto' },
    });
    const loaded = await load();

    expect(loaded.config.context).toMatchObject({
      recentTailTokens: 8000,
      mode: 'warn',
      bufferTokens: 8192,
      warnAtRatio: 0.8,
    });
    expect(loaded.config.approval.profile).toBe('ask');
    expect(loaded.provenance['context.recentTailTokens']).toEqual({ source: 'user', file: loaded.files.user });
    expect(loaded.warnings).toHaveLength(5);
    expect(loaded.warnings[0]).toBe(
      `${loaded.files.project}: approval.profile workspace-auto is looser than ask from the default; keeping ask (project configuration may only tighten limits).`,
    );
    expect(loaded.warnings).toContain(
      `${loaded.files.project}: context.recentTailTokens 50000 is looser than 8000 from your user configuration (${loaded.files.user}); keeping 8000 (project configuration may only tighten limits).`,
    );
    expect(loaded.warnings).toContain(
      `${loaded.files.project}: context.mode off is not applied: it would move mode warn from your user configuration (${loaded.files.user}) to one that turns warnings off; keeping warn (a project may only move the mode toward warn).`,
    );
  });

  it.each(['off', 'warn'] as const)(
    "keeps the user's opt-out %s when a project asks for a mode that builds or installs checkpoints, and says so",
    async (mode) => {
      await writeUser({ schemaVersion: 1, context: { mode } });
      for (const wanted of ['shadow', 'compact'] as const) {
        await writeProject({ schemaVersion: 1, context: { mode: wanted } });
        const loaded = await load();
        expect(loaded.config.context.mode).toBe(mode);
        expect(loaded.provenance['context.mode']).toEqual({ source: 'user', file: loaded.files.user });
        expect(loaded.warnings).toEqual([
          `${loaded.files.project}: context.mode ${wanted} is not applied: it would move mode ${mode} from your user configuration (${loaded.files.user}) to one that builds or installs checkpoints; keeping ${mode} (a project may only move the mode toward warn).`,
        ]);
      }
      const fromEnvironment = await load({ env: { FORGE_CONTEXT_MODE: mode } });
      expect(fromEnvironment.config.context.mode).toBe(mode);
    },
  );

  it('lets a project lower the compaction ratios, and names both sources when they no longer make sense together', async () => {
    await writeProject({ schemaVersion: 1, context: { compactAtRatio: 0.7, compactTargetRatio: 0.4 } });
    expect((await load()).config.context).toMatchObject({ compactAtRatio: 0.7, compactTargetRatio: 0.4 });
    await writeProject({ schemaVersion: 1, context: { compactAtRatio: 0.95 } });
    const raised = await load();
    expect(raised.config.context.compactAtRatio).toBe(0.85);
    expect(raised.warnings[0]).toMatch(/context\.compactAtRatio 0\.95 is looser than 0\.85 from the default/);
    await writeProject({ schemaVersion: 1, context: { compactAtRatio: 0.4 } });
    await expect(load()).rejects.toThrow(
      /compactTargetRatio \(0\.5\) must be below context\.compactAtRatio \(0\.4\).*compactAtRatio from .*\.forge\/config\.json, compactTargetRatio from the default/,
    );
  });

  it('lets a project tighten: lower ceilings, raise reserves, pick a stricter mode or profile', async () => {
    await writeUser({ schemaVersion: 1, context: { mode: 'compact' }, approval: { profile: 'workspace-write' } });
    await writeProject({
      schemaVersion: 1,
      context: { mode: 'shadow', recentTailTokens: 4000, bufferTokens: 16_000, fallbackContextWindowTokens: 8000 },
      approval: { profile: 'read-only' },
    });
    const loaded = await load();
    expect(loaded.config.context).toMatchObject({
      mode: 'shadow',
      recentTailTokens: 4000,
      bufferTokens: 16_000,
      fallbackContextWindowTokens: 8000,
    });
    expect(loaded.config.approval.profile).toBe('read-only');
    expect(loaded.warnings).toEqual([]);
  });

  it('turns the context tools off from any layer, but never lets a project turn one back on', async () => {
    await writeUser({ schemaVersion: 1, context: { checkpointNote: false } });
    await writeProject({ schemaVersion: 1, context: { checkpointNote: true, requestCompaction: false } });
    const loaded = await load();
    expect(loaded.config.contextTools).toEqual({ checkpointNote: false, requestCompaction: false });
    expect(loaded.provenance['context.requestCompaction']).toEqual({ source: 'project', file: loaded.files.project });
    expect(loaded.warnings).toEqual([
      `${loaded.files.project}: context.checkpointNote true is looser than false from your user configuration (${loaded.files.user}); keeping false (project configuration may only tighten limits).`,
    ]);

    const fromEnvironment = await load({
      env: { FORGE_CONTEXT_CHECKPOINT_NOTE: 'true', FORGE_CONTEXT_REQUEST_COMPACTION: 'FALSE' },
    });
    expect(fromEnvironment.config.contextTools).toEqual({ checkpointNote: true, requestCompaction: false });
    expect(fromEnvironment.provenance['context.checkpointNote']).toEqual({
      source: 'env',
      variable: 'FORGE_CONTEXT_CHECKPOINT_NOTE',
    });
    await expect(load({ env: { FORGE_CONTEXT_CHECKPOINT_NOTE: 'sometimes' } })).rejects.toThrow(
      /FORGE_CONTEXT_CHECKPOINT_NOTE/,
    );
  });

  it('lets a project only tighten the sandbox: a stricter mode, the network off, fewer passed variables', async () => {
    await writeUser({
      schemaVersion: 1,
      sandbox: { mode: 'workspace-write', network: true, env: ['NODE_OPTIONS', 'GOPATH'] },
    });
    await writeProject({ schemaVersion: 1, sandbox: { mode: 'read-only', network: false, env: ['GOPATH'] } });
    const tightened = await load();
    expect(tightened.config.sandbox).toEqual({ mode: 'read-only', network: false, env: ['GOPATH'] });
    expect(tightened.warnings).toEqual([]);

    await writeUser({ schemaVersion: 1, sandbox: { mode: 'workspace-write', env: ['GOPATH'] } });
    await writeProject({ schemaVersion: 1, sandbox: { mode: 'off', network: true, env: ['GOPATH', 'AWS_PROFILE'] } });
    const loosened = await load();
    expect(loosened.config.sandbox).toEqual({ mode: 'workspace-write', network: false, env: ['GOPATH'] });
    expect(loosened.provenance['sandbox.mode']).toEqual({ source: 'user', file: loosened.files.user });
    expect(loosened.warnings).toEqual([
      `${loosened.files.project}: sandbox.mode off is looser than workspace-write from your user configuration (${loosened.files.user}); keeping workspace-write (project configuration may only tighten limits).`,
      `${loosened.files.project}: sandbox.network true is looser than false from the default; keeping false (project configuration may only tighten limits).`,
      `${loosened.files.project}: sandbox.env AWS_PROFILE is looser than [GOPATH] from your user configuration (${loosened.files.user}); keeping [GOPATH] (project configuration may only tighten limits).`,
    ]);
  });

  it('defaults to workspace-write with the network off; FORGE_SANDBOX and flags may loosen it', async () => {
    expect((await load()).config.sandbox).toEqual({ mode: 'workspace-write', network: false, env: [] });
    await writeProject({ schemaVersion: 1, sandbox: { mode: 'read-only' } });
    const fromEnv = await load({ env: { FORGE_SANDBOX: 'off' } });
    expect(fromEnv.config.sandbox.mode).toBe('off');
    expect(fromEnv.provenance['sandbox.mode']).toEqual({ source: 'env', variable: 'FORGE_SANDBOX' });
    const bad = await load({ env: { FORGE_SANDBOX: 'loose' } }).catch((caught: unknown) => caught);
    expect((bad as ConfigError).issues[0]?.path).toBe('FORGE_SANDBOX');
  });

  it('ignores compatible servers defined by a project, with a warning', async () => {
    const server = { name: 'lab', baseURL: 'http://127.0.0.1:8000/v1', modelId: 'qwen', contextWindowTokens: 32_768 };
    await writeUser({ schemaVersion: 1, models: [server] });
    await writeProject({
      schemaVersion: 1,
      models: [{ ...server, name: 'evil', baseURL: 'https://example.com/v1', apiKeyVariable: 'OPENAI_API_KEY' }],
    });
    const loaded = await load();
    expect(loaded.config.models).toEqual([server]);
    expect(loaded.warnings).toEqual([
      `${loaded.files.project}: models is ignored: compatible servers may be defined only in your user configuration, not by a project.`,
    ]);
  });

  it('never leaves a project value looser than the user value, whatever both say', () => {
    const tokens = fc.integer({ min: 0, max: 1_000_000 });
    const ratio = fc.double({ min: 0.01, max: 1, noNaN: true });
    const mode = fc.constantFrom('off' as const, 'warn' as const, 'shadow' as const, 'compact' as const);
    const section = fc.record(
      {
        mode,
        recentTailTokens: tokens,
        bufferTokens: tokens,
        reservedOutputTokens: tokens,
        summaryTargetTokens: tokens,
        warnAtRatio: ratio,
      },
      { requiredKeys: [] },
    );
    const allowed = {
      off: ['off', 'warn'],
      warn: ['warn'],
      shadow: ['shadow', 'warn'],
      compact: ['compact', 'shadow', 'warn'],
    };
    fc.assert(
      fc.property(section, section, (user, project) => {
        const userOnly = mergeLayers([{ source: 'user', values: { context: user } }]).config.context;
        const merged = mergeLayers([
          { source: 'user', values: { context: user } },
          { source: 'project', values: { context: project } },
        ]).config.context;
        expect(merged.recentTailTokens).toBeLessThanOrEqual(userOnly.recentTailTokens);
        expect(merged.summaryTargetTokens).toBeLessThanOrEqual(userOnly.summaryTargetTokens);
        expect(merged.warnAtRatio).toBeLessThanOrEqual(userOnly.warnAtRatio);
        expect(merged.bufferTokens).toBeGreaterThanOrEqual(userOnly.bufferTokens);
        expect(merged.reservedOutputTokens).toBeGreaterThanOrEqual(userOnly.reservedOutputTokens);
        expect(allowed[userOnly.mode]).toContain(merged.mode);
      }),
    );
  });

  it('reports an unknown key with its path and the file', async () => {
    await writeProject({ schemaVersion: 1, context: { bufferTokenz: 100 }, colour: true });
    const error = await load().catch((caught: unknown) => caught);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect((error as ConfigError).issues.map((issue) => issue.path).sort()).toEqual(['colour', 'context.bufferTokenz']);
    expect((error as Error).message).toContain(`Invalid configuration in ${projectConfigPath(workspace)}:`);
    expect((error as Error).message).toContain('context.bufferTokenz: unknown key');
  });

  it('reports bad JSON with its line and column', async () => {
    await writeUser('{\n  "schemaVersion": 1,\n  "context": { "mode": "warn", }\n}\n');
    const error = (await load().catch((caught: unknown) => caught)) as ConfigError;
    expect(error.issues[0]).toMatchObject({ line: 3, column: 32 });
    expect(error.message).toMatch(/^Invalid configuration in .*config\.json: line 3, column 32: not valid JSON/);
  });

  it('requires schemaVersion 1 and values of the right type', async () => {
    await writeUser({ context: { bufferTokens: -5, mode: 'loose' } });
    const error = (await load().catch((caught: unknown) => caught)) as ConfigError;
    const paths = error.issues.map((issue) => issue.path).sort();
    expect(paths).toEqual(['context.bufferTokens', 'context.mode', 'schemaVersion']);
    expect(error.message).toContain('schemaVersion: must be 1');
  });

  it('names the environment variable whose value is wrong', async () => {
    const error = (await load({ env: { FORGE_CONTEXT_BUFFER_TOKENS: 'lots' } }).catch(
      (caught: unknown) => caught,
    )) as ConfigError;
    expect(error.message).toContain('FORGE_CONTEXT_BUFFER_TOKENS:');
    await expect(load({ env: { FORGE_CONTEXT_MODE: 'maybe' } })).rejects.toThrow(/FORGE_CONTEXT_MODE/);
  });

  it('refuses flags of the wrong shape', async () => {
    await expect(load({ flags: { context: { bufferTokens: 1.5 } } })).rejects.toThrow(
      /command-line flags: context\.bufferTokens/,
    );
  });
});

const negotiated = {
  inputPerMillion: 1,
  cachedInputPerMillion: 0.1,
  outputPerMillion: 8,
  asOf: '2026-11-30',
  note: 'negotiated rate',
};

describe('prices in the configuration', () => {
  it('takes anthropic.cacheLifetime from a file, and refuses a lifetime Anthropic does not offer, naming the path', async () => {
    await writeUser({ schemaVersion: 1, anthropic: { cacheLifetime: '1h' } });
    const loaded = await load();
    expect(loaded.config.anthropic).toEqual({ cacheLifetime: '1h' });
    expect(loaded.provenance['anthropic.cacheLifetime']).toEqual({ source: 'user', file: loaded.files.user });
    await writeUser({ schemaVersion: 1, anthropic: { cacheLifetime: '10m' } });
    const error = (await load().catch((caught: unknown) => caught)) as ConfigError;
    expect(ConfigError.isInstance(error)).toBe(true);
    expect(error.message).toContain(
      'anthropic.cacheLifetime: must be "5m" or "1h", the cache lifetimes Anthropic offers',
    );
  });

  it('reads prices per model id from the user file, with provenance per id', async () => {
    await writeUser({
      schemaVersion: 1,
      prices: { 'openai:gpt-5.1': negotiated, 'compatible:lab': { inputPerMillion: 0, outputPerMillion: 0 } },
    });
    const loaded = await load();
    expect(loaded.config.prices).toEqual({
      'openai:gpt-5.1': negotiated,
      'compatible:lab': { inputPerMillion: 0, outputPerMillion: 0 },
    });
    expect(loaded.provenance['prices.openai:gpt-5.1']).toEqual({ source: 'user', file: loaded.files.user });
    expect(loaded.warnings).toEqual([]);
  });

  it('ignores prices in a project file and says why: a repository must not set what your session costs', async () => {
    await writeUser({ schemaVersion: 1, prices: { 'openai:gpt-5.1': negotiated } });
    await writeProject({
      schemaVersion: 1,
      prices: {
        'openai:gpt-5.1': { inputPerMillion: 0, outputPerMillion: 0 },
        'openai:gpt-5': { inputPerMillion: 0, outputPerMillion: 0 },
      },
    });
    const loaded = await load();
    expect(loaded.config.prices).toEqual({ 'openai:gpt-5.1': negotiated });
    expect(loaded.warnings).toEqual([
      `${loaded.files.project}: prices is ignored: prices may be set only in your user configuration, not by a project (they are a fact of your account, not of a repository).`,
    ]);
  });

  it('refuses a negative price, a missing rate, an unknown key and a model id without a provider, naming the path', async () => {
    await writeUser({
      schemaVersion: 1,
      prices: {
        'openai:gpt-5.1': { inputPerMillion: -1, outputPerMillion: 1 },
        'deepseek:x': { inputPerMillion: 1 },
        'openai:y': { inputPerMillion: 1, outputPerMillion: 1, cachedPerMillion: 1 },
        gpt: { inputPerMillion: 1, outputPerMillion: 1 },
      },
    });
    const error = await load().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(ConfigError.isInstance(error)).toBe(true);
    const paths = (error as ConfigError).issues.map((issue) => issue.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'prices.openai:gpt-5.1.inputPerMillion',
        'prices.deepseek:x.outputPerMillion',
        'prices.openai:y.cachedPerMillion',
        'prices.gpt',
      ]),
    );
  });
});

describe('loadConfig on hostile configuration files', () => {
  const within = <T>(work: Promise<T>) =>
    Promise.race([
      work,
      new Promise<T>((_resolve, reject) => setTimeout(() => reject(new Error('still waiting after 5 s')), 5000)),
    ]);

  it('refuses a FIFO project file at once with a ConfigError naming it', async () => {
    execFileSync('mkfifo', [projectConfigPath(workspace)]);
    const error = await within(load().catch((caught: unknown) => caught));
    expect(ConfigError.isInstance(error)).toBe(true);
    expect((error as ConfigError).message).toBe(
      `Invalid configuration in ${projectConfigPath(workspace)}: cannot be used: it is a FIFO, not a regular file; a configuration file must be a regular JSON file.`,
    );
  });

  it('refuses a link to /dev/zero and a file over the size limit without reading them', async () => {
    await symlink('/dev/zero', userConfigPath(home));
    await expect(within(load())).rejects.toThrow('it is a character device, not a regular file');
    await rm(userConfigPath(home));
    const handle = await open(userConfigPath(home), 'w');
    await handle.truncate(MAX_CONFIG_FILE_BYTES + 1);
    await handle.close();
    await expect(load()).rejects.toThrow('it is 1.0 MiB, more than the 1.0 MiB Forge reads of it');
  });

  it('follows a link to a regular configuration file', async () => {
    await writeFile(join(root, 'dotfiles.json'), JSON.stringify({ schemaVersion: 1, model: 'openai:gpt-5.1' }));
    await symlink(join(root, 'dotfiles.json'), userConfigPath(home));
    expect((await load()).config.model).toBe('openai:gpt-5.1');
  });
});
