import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ScriptedModel } from '@forge/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConfigReport } from '../config/config-report.js';
import { main } from '../main.js';
import { createTestIo, runCli, temporaryDirectory } from '../test-support/cli-harness.js';

/*
 * `forge config show|validate` and the configuration as every command sees it, driven in process
 * with a temporary FORGE_HOME (user file) and workspace (project file).
 */

let workspace: Awaited<ReturnType<typeof temporaryDirectory>>;
let forgeHome: Awaited<ReturnType<typeof temporaryDirectory>>;
let userFile: string;
let projectFile: string;

beforeEach(async () => {
  workspace = await temporaryDirectory('forge-config-ws-');
  forgeHome = await temporaryDirectory('forge-config-home-');
  userFile = path.join(forgeHome.path, 'config.json');
  projectFile = path.join(workspace.path, '.forge', 'config.json');
  await mkdir(path.dirname(projectFile), { recursive: true });
});

afterEach(async () => {
  await workspace.remove();
  await forgeHome.remove();
});

const write = (file: string, value: unknown) =>
  writeFile(file, typeof value === 'string' ? value : `${JSON.stringify(value, null, 2)}\n`);
const forge = (args: readonly string[], env: Record<string, string> = {}) =>
  runCli(args, { cwd: workspace.path, env: { FORGE_HOME: forgeHome.path, ...env } });

async function showJson(args: readonly string[] = [], env: Record<string, string> = {}): Promise<ConfigReport> {
  const outcome = await forge(['config', 'show', '--json', ...args], env);
  expect(outcome.stderr).toBe('');
  expect(outcome.code).toBe(0);
  return JSON.parse(outcome.stdout) as ConfigReport;
}

const entry = (report: ConfigReport, key: string) => report.values.find((value) => value.path === key);

describe('forge config show', () => {
  it('prints defaults, each marked default, and says neither file exists', async () => {
    const outcome = await forge(['config', 'show']);
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toContain(`user     ${userFile}  (not found)`);
    expect(outcome.stdout).toMatch(/^model\s+scripted:demo\s+default$/m);
    expect(outcome.stdout).toMatch(/^context\.recentTailTokens\s+12000\s+default$/m);
    expect(outcome.stdout).toMatch(/^mcpServers\s+\(none\)\s+default$/m);
  });

  it('layers user < project < environment < flags and names the source of every value', async () => {
    await write(userFile, {
      schemaVersion: 1,
      model: 'openai:gpt-5.1',
      approval: { profile: 'workspace-write' },
      context: { recentTailTokens: 20_000, bufferTokens: 9000, mode: 'compact' },
    });
    await write(projectFile, { schemaVersion: 1, context: { recentTailTokens: 6000 }, approval: { profile: 'ask' } });
    const report = await showJson(['--model', 'deepseek:deepseek-chat', '--context-mode', 'shadow'], {
      FORGE_CONTEXT_BUFFER_TOKENS: '11000',
    });

    expect(report.files).toEqual({
      user: { path: userFile, exists: true },
      project: { path: projectFile, exists: true },
    });
    expect(entry(report, 'model')).toEqual({
      path: 'model',
      value: 'deepseek:deepseek-chat',
      source: 'flag',
      flag: '--model',
    });
    expect(entry(report, 'context.mode')).toEqual({
      path: 'context.mode',
      value: 'shadow',
      source: 'flag',
      flag: '--context-mode',
    });
    expect(entry(report, 'approval.profile')).toEqual({
      path: 'approval.profile',
      value: 'ask',
      source: 'project',
      file: projectFile,
    });
    expect(entry(report, 'context.recentTailTokens')).toEqual({
      path: 'context.recentTailTokens',
      value: 6000,
      source: 'project',
      file: projectFile,
    });
    expect(entry(report, 'context.bufferTokens')).toEqual({
      path: 'context.bufferTokens',
      value: 11_000,
      source: 'env',
      variable: 'FORGE_CONTEXT_BUFFER_TOKENS',
    });
    expect(entry(report, 'context.warnAtRatio')).toEqual({
      path: 'context.warnAtRatio',
      value: 0.8,
      source: 'default',
    });
    expect(report.warnings).toEqual([]);

    const text = await forge(['config', 'show', '--approval', 'read-only'], { FORGE_MODEL: 'openai:gpt-5' });
    expect(text.stdout).toMatch(/^model\s+openai:gpt-5\s+env FORGE_MODEL$/m);
    expect(text.stdout).toMatch(/^approval\.profile\s+read-only\s+flag --approval$/m);
    expect(text.stdout).toMatch(
      new RegExp(`^context\\.recentTailTokens\\s+6000\\s+project ${projectFile.replaceAll('.', '\\.')}$`, 'm'),
    );
    expect(text.stdout).toMatch(
      new RegExp(`^context\\.mode\\s+compact\\s+user ${userFile.replaceAll('.', '\\.')}$`, 'm'),
    );
  });

  it('lets a project only tighten: a raised user ceiling and a looser approval are kept at the user values, with warnings', async () => {
    await write(userFile, { schemaVersion: 1, context: { recentTailTokens: 8000 } });
    await write(projectFile, {
      schemaVersion: 1,
      context: { recentTailTokens: 50_000, bufferTokens: 100 },
      approval: { profile: 'workspace-auto' },
    });
    const report = await showJson();
    expect(entry(report, 'context.recentTailTokens')).toMatchObject({ value: 8000, source: 'user', file: userFile });
    expect(entry(report, 'context.bufferTokens')).toMatchObject({ value: 8192, source: 'default' });
    expect(entry(report, 'approval.profile')).toMatchObject({ value: 'ask', source: 'default' });
    expect(report.warnings).toHaveLength(3);
    expect(report.warnings).toContain(
      `${projectFile}: context.recentTailTokens 50000 is looser than 8000 from your user configuration (${userFile}); keeping 8000 (project configuration may only tighten limits).`,
    );

    // Every other command warns once on stderr and runs with the user's limits.
    const model = new ScriptedModel([{ text: 'ok' }]);
    const test = createTestIo({ cwd: workspace.path, env: { FORGE_HOME: forgeHome.path }, models: { main: model } });
    test.stdin.end();
    expect(await main(['node', 'forge', 'run', '--json', '--model', 'test:main', 'hi'], test.io)).toBe(0);
    expect(test.stderr.text.split('\n').filter((line) => line.startsWith('forge: warning:'))).toHaveLength(3);
    const budgeted = test.stdout.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: { type: string; bufferTokens?: number } })
      .find((envelope) => envelope.event.type === 'context.budgeted');
    expect(budgeted?.event.bufferTokens).toBe(8192);
  });

  it('lists the compaction keys with provenance, and refuses a compactor set by a project', async () => {
    const defaults = await forge(['config', 'show']);
    expect(defaults.stdout).toMatch(/^context\.compaction\.strategy\s+forge-state\s+default$/m);
    expect(defaults.stdout).toMatch(/^context\.compaction\.model\s+\(none\)\s+default$/m);
    expect(defaults.stdout).toMatch(/^context\.providerNative\.persist\s+false\s+default$/m);

    await write(userFile, {
      schemaVersion: 1,
      context: { compaction: { strategy: 'provider-native' }, providerNative: { persist: true } },
    });
    await write(projectFile, { schemaVersion: 1, context: { compaction: { model: 'deepseek:deepseek-v4-pro' } } });
    const text = await forge(['config', 'show']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      new RegExp(
        `^context\\.compaction\\.strategy\\s+provider-native\\s+user ${userFile.replaceAll('.', '\\.')}$`,
        'm',
      ),
    );
    expect(text.stdout).toMatch(/^context\.compaction\.model\s+\(none\)\s+default$/m);
    expect(text.stdout).toMatch(/^context\.providerNative\.persist\s+true\s+user /m);
    expect(text.stdout).toContain(
      `${projectFile}: context.compaction.model is ignored: a compactor model receives the conversation`,
    );

    // Every other command says so once on stderr.
    const run = await forge(['run', '--no-session', 'hi']);
    expect(run.code).toBe(0);
    expect(run.stderr.split('\n').filter((line) => line.includes('context.compaction.model is ignored'))).toHaveLength(
      1,
    );
  });

  it('masks credentials: header values of compatible servers and env values of MCP servers', async () => {
    await write(userFile, {
      schemaVersion: 1,
      models: [
        {
          name: 'lab',
          baseURL: 'http://127.0.0.1:9/v1',
          modelId: 'm',
          contextWindowTokens: 8192,
          headers: { 'x-api-key': 'hunter2-header-secret' },
        },
      ],
      mcpServers: [{ name: 'notes', command: 'node', args: ['notes.mjs'], env: { NOTES_TOKEN: 'hunter2-env-secret' } }],
    });
    const text = await forge(['config', 'show']);
    const json = await forge(['config', 'show', '--json']);
    for (const output of [text.stdout, json.stdout]) {
      expect(output).not.toContain('hunter2');
      expect(output).toContain('notes');
    }
    expect(text.stdout).toMatch(/^models\s+lab \(m at http:\/\/127\.0\.0\.1:9\/v1\)\s+user /m);
    expect(text.stdout).toMatch(/^mcpServers\s+notes \(node notes\.mjs\)\s+user /m);
  });

  it('lists configured prices one model per row, with the file they came from', async () => {
    await write(userFile, {
      schemaVersion: 1,
      prices: { 'openai:gpt-5.1': { inputPerMillion: 1, cachedInputPerMillion: 0.1, outputPerMillion: 8 } },
    });
    const text = await forge(['config', 'show']);
    expect(text.stdout).toMatch(
      /^prices\.openai:gpt-5\.1\s+\$1 input · \$0\.1 cached · \$8 output per 1M tokens\s+user /m,
    );
    const json = JSON.parse((await forge(['config', 'show', '--json'])).stdout) as {
      values: { path: string; value: unknown; source: string }[];
    };
    expect(json.values.find((entry) => entry.path === 'prices.openai:gpt-5.1')).toMatchObject({
      value: { inputPerMillion: 1, cachedInputPerMillion: 0.1, outputPerMillion: 8 },
      source: 'user',
    });
  });
});

describe('invalid configuration', () => {
  it('reports an unknown key with its path, line and column, and stops other commands with exit 2', async () => {
    await write(userFile, '{\n  "schemaVersion": 1,\n  "context": {\n    "bufferToken": 9000\n  }\n}\n');
    const validated = await forge(['config', 'validate']);
    expect(validated.code).toBe(1);
    expect(validated.stdout).toContain(`invalid  ${userFile}\n`);
    expect(validated.stdout).toContain(`  ${userFile}:4:5: context.bufferToken: unknown key`);

    const run = await forge(['run', 'hi']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain(
      `forge: error: Invalid configuration in ${userFile}: context.bufferToken: unknown key`,
    );
    expect(run.stderr).toContain("check with 'forge config validate'");
  });

  it('reports bad JSON with its line and column', async () => {
    await write(projectFile, '{\n  "schemaVersion": 1,\n  "model": "openai:gpt-5",\n}\n');
    const validated = await forge(['config', 'validate', '.forge/config.json']);
    expect(validated.code).toBe(1);
    expect(validated.stdout).toMatch(new RegExp(`${projectFile.replaceAll('.', '\\.')}:4:1: not valid JSON`));

    const shown = await forge(['config', 'show']);
    expect(shown.code).toBe(2);
    expect(shown.stderr).toContain(`Invalid configuration in ${projectFile}: line 4, column 1: not valid JSON`);
  });

  it('names the missing schemaVersion, a wrong type and a value of a bad environment variable', async () => {
    await write(userFile, { context: { recentTailTokens: 'lots' } });
    const validated = await forge(['config', 'validate']);
    expect(validated.stdout).toContain(`${userFile}:1:1: schemaVersion: must be 1`);
    expect(validated.stdout).toMatch(
      new RegExp(`${userFile.replaceAll('.', '\\.')}:3:5: context\\.recentTailTokens: `),
    );

    await write(userFile, { schemaVersion: 1 });
    const environment = await forge(['config', 'show'], { FORGE_CONTEXT_MODE: 'sometimes' });
    expect(environment.code).toBe(2);
    expect(environment.stderr).toContain('FORGE_CONTEXT_MODE');
  });

  it('says when there is nothing to validate, and exits 2 for a named file that does not exist', async () => {
    const none = await forge(['config', 'validate']);
    expect(none.code).toBe(0);
    expect(none.stdout).toContain('No configuration files');
    const missing = await forge(['config', 'validate', 'nope.json']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`${path.join(workspace.path, 'nope.json')} does not exist`);
  });

  it('validates good files, listing project values that would not apply as warnings', async () => {
    await write(userFile, { schemaVersion: 1, approval: { profile: 'ask' } });
    await write(projectFile, { schemaVersion: 1, approval: { profile: 'workspace-auto' } });
    const validated = await forge(['config', 'validate']);
    expect(validated.code).toBe(0);
    expect(validated.stdout).toContain(`valid    ${userFile}\n`);
    expect(validated.stdout).toContain(`valid    ${projectFile}\n`);
    expect(validated.stdout).toContain('warning: ');
    expect(validated.stdout).toContain('approval.profile workspace-auto is looser than ask');
  });
});
