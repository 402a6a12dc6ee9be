import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { symlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { startLoopbackProvider, turn, type LoopbackProvider } from '@forge/loopback-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionIdOf, toolResultTexts, useBundle, userSetup } from './support/bundle.js';
import { isAlive, poll } from './support/processes.js';

/* The smaller defects of issue 30, each through the bundled binary. */

const fixture = useBundle('bundle-reliability-smaller');

describe('smaller reliability points through the bundled forge', () => {
  it('an AGENTS.md linking out of the workspace is warned about once', async () => {
    const user = await userSetup(fixture, 'agents-once');
    await symlink('/etc/passwd', path.join(user.workspace, 'AGENTS.md'));
    const script = await user.writeModelScript([{ text: 'hi' }]);
    const run = await user.forge(['run', '--model', 'scripted:file', 'hi'], script);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr.split('\n').filter((line) => line.includes('AGENTS.md is a symbolic link'))).toHaveLength(1);
  });
});

describe('a command cancelled through the bundled forge', () => {
  it('is stored with the note that what it started may still be running', async () => {
    const user = await userSetup(fixture, 'cancelled-note');
    const script = await user.writeModelScript([
      {
        toolCalls: [{ toolName: 'run_command', input: { argv: ['sh', '-c', 'echo started > started.txt; sleep 30'] } }],
      },
      { text: 'never reached' },
    ]);
    const forge = user.start(['run', '--model', 'scripted:file', '--approval', 'workspace-auto', 'Sleep'], script);
    await poll(() => existsSync(path.join(user.workspace, 'started.txt')), 20_000, 'the command to start');
    forge.child.kill('SIGTERM');
    const ended = await forge.ended;
    expect(ended.code).toBe(143);
    const [result] = toolResultTexts((await user.session(sessionIdOf(ended.stderr))).messages);
    expect(result).toContain('may still be running');
  });
});

describe('provider faults through the bundled forge and the loopback server', () => {
  let provider: LoopbackProvider;
  beforeAll(async () => {
    provider = await startLoopbackProvider();
  });
  afterAll(async () => {
    await provider.close();
  });
  const openai = () => ({ OPENAI_API_KEY: 'sk-smaller-test', OPENAI_BASE_URL: provider.baseURL });

  it('an answer cut mid-stream is stored marked as cut, and a resume sends it marked', async () => {
    const user = await userSetup(fixture, 'cut-stream');
    provider.enqueue({
      type: 'cut',
      turn: turn({ text: ['The plan has three ', 'steps: first'], usage: { inputTokens: 900, outputTokens: 5 } }),
      afterEvents: 'before-completion',
    });
    const cut = await user.forge(['run', '--model', 'openai:gpt-5', 'Plan it'], openai());
    expect(cut.code).not.toBe(0);
    const session = await user.session(sessionIdOf(cut.stderr));
    const answer = JSON.stringify(session.messages.at(-1));
    expect(answer).toContain('steps: first');
    expect(answer).toContain('[Forge: this answer was cut off here');

    provider.enqueue(turn({ text: 'Resumed.', usage: { inputTokens: 950, outputTokens: 2 } }));
    const before = provider.requests.length;
    const resumed = await user.forge(['run', '--last', '--model', 'openai:gpt-5', 'Go on'], openai());
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(provider.requests[before]?.rawBody).toContain('this answer was cut off here');
  });

  it('cached input above the input is clamped to it, with a warning', async () => {
    const user = await userSetup(fixture, 'cached-clamp');
    provider.enqueue(
      turn({ text: 'Cached.', usage: { inputTokens: 100, cachedInputTokens: 10_000_000, outputTokens: 2 } }),
    );
    const run = await user.forge(['run', '--model', 'openai:gpt-5', 'Hello'], openai());
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('The provider reported 10,000,000 cached input tokens of 100');
    const session = await user.session(sessionIdOf(run.stderr));
    expect(session.runs[0]?.usage).toMatchObject({ inputTokens: 100, cacheReadTokens: 100 });
  });
});

describe('edit_file and a planted git repository, through the bundled forge', () => {
  it('refuses the files that would complete a bare repository (HEAD, objects/, refs/, a config with core.pager)', async () => {
    const user = await userSetup(fixture, 'bare-repository');
    const edit = (file: string, content: string) => ({
      toolName: 'edit_file',
      input: { path: `vendor/lib/${file}`, mode: 'create', content },
    });
    const script = await user.writeModelScript([
      {
        toolCalls: [
          edit('HEAD', 'ref: refs/heads/main\n'),
          edit('objects/info/packs', '\n'),
          edit('refs/heads/main', '0000000000000000000000000000000000000000\n'),
          edit('config', '[core]\n\tpager = touch pwned; less\n'),
        ],
      },
      { text: 'Planted.' },
    ]);
    const run = await user.forge(
      ['run', '--model', 'scripted:file', '--approval', 'workspace-write', 'Vendor it'],
      script,
    );
    expect(run.code, run.stderr).toBe(0);
    const results = toolResultTexts((await user.session(sessionIdOf(run.stderr))).messages);
    expect(results[0]).toMatch(/^Created "vendor\/lib\/HEAD"/);
    // objects/ and refs/ beside a HEAD are refused, so the config (harmless alone) never completes a repository.
    expect(results.slice(1, 3).every((result) => result.includes('Treated like .git'))).toBe(true);
    for (const directory of ['objects', 'refs'])
      expect(existsSync(path.join(user.workspace, 'vendor', 'lib', directory))).toBe(false);
  });
});

describe('a session lock whose pid was reused, through the bundled forge', () => {
  it('is recovered: the live process started after the lock, so it is not its owner', async () => {
    const user = await userSetup(fixture, 'reused-pid');
    const first = await user.forge(
      ['run', '--model', 'scripted:file', 'hi'],
      await user.writeModelScript([{ text: 'one' }]),
    );
    expect(first.code, first.stderr).toBe(0);
    const sessionId = sessionIdOf(first.stderr);
    const stranger = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      const lockFile = path.join(user.forgeHome, 'sessions', sessionId, 'lock');
      const startedAt = new Date(Date.now() - 3_600_000).toISOString();
      await writeFile(
        lockFile,
        JSON.stringify({ pid: stranger.pid, hostname: hostname(), startedAt, token: 'reused' }),
      );
      const resumed = await user.forge(
        ['run', '--resume', sessionId, '--model', 'scripted:file', 'again'],
        await user.writeModelScript([{ text: 'two' }]),
      );
      expect(resumed.stderr).not.toContain('is in use by');
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stdout).toContain('two');
      expect(isAlive(stranger.pid ?? 0)).toBe(true);
    } finally {
      stranger.kill();
    }
  });
});

describe('MCP results and schemas too large, through the bundled forge', () => {
  const testServer = path.join(
    path.dirname(createRequire(import.meta.url).resolve('@forge/mcp/package.json')),
    'src',
    'test-server',
    'test-server.mjs',
  );

  it('a 50 MB result is cut and the server keeps serving; a 1 MB schema is left out with a warning', async () => {
    const user = await userSetup(fixture, 'mcp-large');
    await user.writeConfig({
      mcpServers: [{ name: 'test', command: process.execPath, args: [testServer, '--huge-schema'], risk: 'read' }],
    });
    const script = await user.writeModelScript([
      { toolCalls: [{ toolName: 'test__big', input: { chars: 50 * 1024 * 1024 } }] },
      { toolCalls: [{ toolName: 'test__echo', input: { text: 'still here' } }] },
      { text: 'Done.' },
    ]);
    const run = await user.forge(['run', '--model', 'scripted:file', 'Fetch it'], script);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('MCP server "test" offers tool "huge" with an input schema of');
    expect(run.stderr).toContain('the tool was left out');
    const results = toolResultTexts((await user.session(sessionIdOf(run.stderr))).messages);
    expect(results[0]?.length).toBeLessThan(1024 * 1024);
    expect(results[0]).toMatch(/^x{100}/);
    expect(results[1]).toBe('echo: still here');
    const context = await user.forge(['context', '--json']);
    expect(context.stdout).not.toContain('test__huge');
  });
});
