import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startLoopbackProvider, turn, type LoopbackProvider } from '@forge/loopback-provider';
import { ScriptedModel } from '@forge/core/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TEST_SERVER_PATH } from '@forge/mcp/test-helpers/test-server';
import { main } from '../main.js';
import { createTestIo, runCli, temporaryDirectory } from '../test-support/cli-harness.js';

/*
 * What the configuration changes in `forge run`: the default model, the approval profile, the
 * context policy, the redacted secrets, compatible servers (over HTTP to a loopback server) and MCP
 * servers (the test server of @forge/mcp, started per run).
 */

let workspace: Awaited<ReturnType<typeof temporaryDirectory>>;
let forgeHome: Awaited<ReturnType<typeof temporaryDirectory>>;
let provider: LoopbackProvider;

beforeAll(async () => {
  provider = await startLoopbackProvider();
});

afterAll(async () => {
  await provider.close();
});

beforeEach(async () => {
  workspace = await temporaryDirectory('forge-config-effects-');
  forgeHome = await temporaryDirectory('forge-config-effects-home-');
});

afterEach(async () => {
  await workspace.remove();
  await forgeHome.remove();
});

const writeUserConfig = (value: Record<string, unknown>) =>
  writeFile(path.join(forgeHome.path, 'config.json'), JSON.stringify({ schemaVersion: 1, ...value }));

interface Envelope {
  readonly sessionId?: string;
  readonly event: { readonly type: string; readonly [field: string]: unknown };
}

async function runWith(model: ScriptedModel, args: readonly string[], env: Record<string, string> = {}) {
  const test = createTestIo({
    cwd: workspace.path,
    env: { FORGE_HOME: forgeHome.path, ...env },
    models: { main: model },
  });
  test.stdin.end();
  const code = await main(['node', 'forge', 'run', '--json', ...args], test.io);
  const envelopes = test.stdout.text
    .trim()
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as Envelope);
  return { code, envelopes, stderr: test.stderr.text };
}

const storedSession = (id: string | undefined) =>
  readFile(path.join(forgeHome.path, 'sessions', id ?? 'missing', 'session.jsonl'), 'utf8');

describe('the configuration in forge run', () => {
  it('supplies the default model, the approval profile and the context policy', async () => {
    await writeUserConfig({
      model: 'test:main',
      approval: { profile: 'workspace-write' },
      context: { mode: 'off', bufferTokens: 10_000 },
    });
    const model = new ScriptedModel([
      { toolCalls: [{ toolName: 'edit_file', input: { path: 'made.txt', mode: 'create', content: 'by config\n' } }] },
      { text: 'Done.' },
    ]);
    const outcome = await runWith(model, ['Make a file']);
    expect(outcome.stderr).not.toContain('denied');
    expect(outcome.code).toBe(0);
    expect(await readFile(path.join(workspace.path, 'made.txt'), 'utf8')).toBe('by config\n');
    const budgeted = outcome.envelopes.find((envelope) => envelope.event.type === 'context.budgeted')?.event;
    expect(budgeted).toMatchObject({ mode: 'off', decision: 'off', bufferTokens: 10_000 });
  });

  it('lets flags override the configuration for one invocation', async () => {
    await writeUserConfig({ approval: { profile: 'workspace-write' }, context: { mode: 'off' } });
    const model = new ScriptedModel([
      { toolCalls: [{ toolName: 'edit_file', input: { path: 'made.txt', mode: 'create', content: 'x\n' } }] },
      { text: 'Could not.' },
    ]);
    const outcome = await runWith(model, [
      '--model',
      'test:main',
      '--approval',
      'read-only',
      '--context-mode',
      'warn',
      'Make a file',
    ]);
    expect(outcome.code).toBe(0);
    expect(outcome.stderr).toContain('forge: denied edit_file');
    expect(outcome.envelopes.find((envelope) => envelope.event.type === 'context.budgeted')?.event).toMatchObject({
      mode: 'warn',
    });
  });

  it('redacts the values of the variables secrets.env names, whatever their names', async () => {
    await writeUserConfig({ secrets: { env: ['DEPLOY_PHRASE'] } });
    const phrase = 'correct-horse-battery-staple';
    const outcome = await runWith(
      new ScriptedModel([{ text: 'Noted.' }]),
      ['--model', 'test:main', `remember ${phrase}`],
      { DEPLOY_PHRASE: phrase },
    );
    expect(outcome.code).toBe(0);
    const stored = await storedSession(outcome.envelopes[0]?.sessionId);
    expect(stored).not.toContain(phrase);
    expect(stored).toContain('[REDACTED:secret]');
  });

  it('builds compatible:<name> from the configured server and names the configured ones for an unknown name', async () => {
    await writeUserConfig({
      models: [{ name: 'local', baseURL: provider.baseURL, modelId: 'qwen-test', contextWindowTokens: 32_768 }],
    });
    provider.enqueue(turn({ text: 'Hello from the local server.' }));
    const before = provider.requests.length;
    const ran = await runCli(['run', '--model', 'compatible:local', 'Say hello'], {
      cwd: workspace.path,
      env: { FORGE_HOME: forgeHome.path },
    });
    expect(ran.stderr).not.toContain('error');
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('Hello from the local server.');
    const sent = provider.requests.slice(before);
    expect(sent.map((request) => request.path)).toEqual(['/v1/chat/completions']);
    expect(JSON.stringify(sent[0]?.body)).toContain('qwen-test');
    const sessionId = /^session: (\S+)$/m.exec(ran.stderr)?.[1] ?? '';
    const inspected = await runCli(['inspect', sessionId], {
      cwd: workspace.path,
      env: { FORGE_HOME: forgeHome.path },
    });
    expect(inspected.stdout).toContain('  model        compatible:local\n');
    expect(inspected.stdout).toContain('  engine       native\n');

    const unknown = await runCli(['run', '--model', 'compatible:ollama', 'hi'], {
      cwd: workspace.path,
      env: { FORGE_HOME: forgeHome.path },
    });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      'forge: error: compatible:ollama is not configured; configured compatible models: local\n',
    );
  });

  it('offers the tools of configured MCP servers, warns about one that fails, and redacts their env values', async () => {
    const token = 'mcp-token-0123456789';
    await writeUserConfig({
      mcpServers: [
        { name: 'tools', command: process.execPath, args: [TEST_SERVER_PATH], env: { TEST_TOKEN: token } },
        { name: 'broken', command: process.execPath, args: [TEST_SERVER_PATH, '--fail-on-start=no database'] },
      ],
    });
    const model = new ScriptedModel([
      { toolCalls: [{ toolName: 'tools__echo', input: { text: `token ${token}` } }] },
      { text: 'Echoed.' },
    ]);
    const outcome = await runWith(model, ['--model', 'test:main', '--approval', 'workspace-auto', 'Echo the token']);
    expect(outcome.code).toBe(0);
    expect(outcome.stderr).toMatch(/forge: warning: .*broken/);
    const offered = model.requests[0]?.tools.map((tool) => tool.name) ?? [];
    expect(offered.slice(0, 7)).toEqual([
      'list_files',
      'read_file',
      'search',
      'edit_file',
      'run_command',
      'tools__echo',
      'tools__add',
    ]);
    expect(offered.filter((name) => name.startsWith('broken__'))).toEqual([]);
    const completed = outcome.envelopes.find((envelope) => envelope.event.type === 'tool.call.completed')?.event;
    expect(completed).toMatchObject({ toolName: 'tools__echo', outcome: 'ok' });
    const stored = await storedSession(outcome.envelopes[0]?.sessionId);
    expect(stored).toContain('echo: token [REDACTED:secret]');
    expect(stored).not.toContain(token);
  }, 20_000);

  it('asks before an MCP tool runs: forge run cannot ask, so the call is denied under ask', async () => {
    await writeUserConfig({ mcpServers: [{ name: 'tools', command: process.execPath, args: [TEST_SERVER_PATH] }] });
    const model = new ScriptedModel([
      { toolCalls: [{ toolName: 'tools__add', input: { a: 1, b: 2 } }] },
      { text: 'Denied.' },
    ]);
    const outcome = await runWith(model, ['--model', 'test:main', 'Add']);
    expect(outcome.code).toBe(0);
    expect(outcome.envelopes.find((envelope) => envelope.event.type === 'tool.call.completed')?.event).toMatchObject({
      toolName: 'tools__add',
      outcome: 'denied',
    });
  }, 20_000);
});
