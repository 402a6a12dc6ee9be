import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodexDirectories, writeLoopbackConfig } from '@forge/codex/test-helpers/codex-harness';
import { assistantMessage, startLoopbackResponsesServer } from '@forge/codex/test-helpers/loopback-responses';
import { budgetTable } from './inspect/budget-table.test-helpers.js';
import { temporaryDirectory, waitFor } from './test-support/cli-harness.js';
import { spawnForge, type SpawnedForge } from './test-support/private-build.js';

/*
 * The built binary, spawned as users run it: exit codes, --version, --help, and real SIGINT.
 * The bundle is built here when it is missing or older than the sources (`pnpm test` builds first).
 */

const packageDirectory = fileURLToPath(new URL('..', import.meta.url));
const bin = path.join(packageDirectory, 'bin', 'forge.js');
const bundle = path.join(packageDirectory, 'dist', 'main.js');

function newestSource(directory: string): number {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(full) : statSync(full).mtimeMs);
  }
  return newest;
}

function forge(
  args: readonly string[],
  options: {
    readonly cwd?: string;
    readonly env?: Record<string, string>;
    readonly user?: { readonly uid: number; readonly gid: number };
  } = {},
): Promise<SpawnedForge> {
  return spawnForge(bin, args, {
    cwd: options.cwd ?? packageDirectory,
    env: { PATH: process.env.PATH ?? '', FORGE_HOME: forgeHome.path, ...options.env },
    ...(options.user === undefined ? {} : { user: options.user }),
  });
}

let workspace: Awaited<ReturnType<typeof temporaryDirectory>>;
let forgeHome: Awaited<ReturnType<typeof temporaryDirectory>>;

beforeAll(async () => {
  if (!existsSync(bundle) || statSync(bundle).mtimeMs < newestSource(path.join(packageDirectory, 'src'))) {
    execFileSync(process.execPath, ['build.mjs'], { cwd: packageDirectory, stdio: 'inherit' });
  }
  workspace = await temporaryDirectory('forge-bin-');
  forgeHome = await temporaryDirectory('forge-bin-home-');
  await writeFile(path.join(workspace.path, 'README.md'), '# Spawned Fixture\n\nChecked by the binary tests.\n');
}, 60_000);

afterAll(async () => {
  await workspace.remove();
  await forgeHome.remove();
});

/** Every module `dist/main.js` loads before running (static imports only, followed through chunks). */
function staticImportGraph(entry: string): { readonly files: string[]; readonly packages: string[] } {
  const files: string[] = [];
  const packages = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (files.includes(file)) continue;
    files.push(file);
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(/^\s*(?:import|export)\s[^;]*?from\s*"([^"]+)"|^\s*import\s*"([^"]+)"/gm)) {
      const specifier = match[1] ?? match[2] ?? '';
      if (specifier.startsWith('.')) pending.push(path.resolve(path.dirname(file), specifier));
      else packages.add(specifier);
    }
  }
  return { files, packages: [...packages].sort() };
}

describe('the start-up path of the bundle', () => {
  it('loads only commander and node built-ins before a command runs; zod, core and tools stay in lazy chunks', () => {
    const graph = staticImportGraph(bundle);
    expect(graph.packages.filter((name) => !name.startsWith('node:'))).toEqual(['commander']);
    const loadedBytes = graph.files.reduce((total, file) => total + statSync(file).size, 0);
    expect(loadedBytes).toBeLessThan(40_000);
  });
});

describe('the forge binary', () => {
  it('prints its version', async () => {
    const { version } = JSON.parse(readFileSync(path.join(packageDirectory, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(await forge(['--version'])).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('prints help', async () => {
    const { code, stdout, stderr } = await forge(['--help']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^Usage: forge \[options\] \[command\]/);
  });

  it('exits 2 with a one-line error and no stack trace for a configuration error', async () => {
    const { code, stdout, stderr } = await forge(['run', '--model', 'openai:gpt-5', 'hello']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe('forge: error: OPENAI_API_KEY is not set; export it or choose another model with --model\n');
  });

  it('exits 2 naming FORGE_HOME and the fix when FORGE_HOME cannot be written, instead of a raw EACCES', async () => {
    // Root ignores permission bits, so as root the binary runs as the unprivileged user `nobody`.
    const user = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;
    const scratch = await temporaryDirectory('forge-bin-read-only-');
    try {
      const readOnly = path.join(scratch.path, 'read-only');
      await mkdir(readOnly);
      await chmod(scratch.path, 0o755);
      await chmod(readOnly, 0o555);
      const fix = 'Point FORGE_HOME (or --forge-home) at a directory you can write, or fix the permissions of';
      const missing = await forge(['run', '--model', 'scripted:demo', 'hi'], {
        cwd: scratch.path,
        env: { FORGE_HOME: path.join(readOnly, 'home') },
        ...(user === undefined ? {} : { user }),
      });
      expect(missing.stderr).toBe(
        `forge: error: FORGE_HOME ${path.join(readOnly, 'home')} cannot be created: permission denied (EACCES) in ${readOnly}. ${fix} ${readOnly}.\n`,
      );
      expect(missing.code).toBe(2);
      const existing = await forge(['run', '--model', 'scripted:demo', 'hi'], {
        cwd: scratch.path,
        env: { FORGE_HOME: readOnly },
        ...(user === undefined ? {} : { user }),
      });
      expect(existing.stderr).toMatch(
        /^forge: error: FORGE_HOME \S+ (is not writable|cannot be created): permission denied \(EACCES\) (at|in) \S+\. Point FORGE_HOME/,
      );
      expect(existing.stderr).toContain(readOnly);
      expect(existing.code).toBe(2);
    } finally {
      await scratch.remove();
    }
  });

  it('exits 2 for a bad flag value', async () => {
    const { code, stderr } = await forge(['run', '--max-steps', 'lots', 'hello']);
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it('summarises a workspace with scripted:demo', async () => {
    const { code, stdout } = await forge([
      'run',
      '--model',
      'scripted:demo',
      '--cwd',
      workspace.path,
      'Summarise the workspace',
    ]);
    expect(code).toBe(0);
    expect(stdout).toContain('README.md has 3 lines; its first heading is "# Spawned Fixture".');
  });

  it('prices a run over real HTTP with the bundled OpenAI adapter, and forge inspect shows cached tokens, cost per step and the total', async () => {
    const { startLoopbackProvider, turn } = await import('@forge/loopback-provider');
    const provider = await startLoopbackProvider();
    try {
      provider.enqueue(
        turn({
          toolCalls: [{ name: 'read_file', arguments: { path: 'README.md' }, callId: 'call_readme' }],
          usage: { inputTokens: 5000, cachedInputTokens: 0, outputTokens: 40 },
        }),
        turn({
          text: 'It is the spawned fixture.',
          usage: { inputTokens: 5200, cachedInputTokens: 4992, outputTokens: 10 },
        }),
      );
      const env = { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: provider.baseURL };
      const run = await forge(
        ['run', '--json', '--model', 'openai:gpt-5.1', '--cwd', workspace.path, 'What is this?'],
        { env },
      );
      expect(run.code).toBe(0);
      const completed = run.stdout
        .trim()
        .split('\n')
        .map(
          (line) =>
            (JSON.parse(line) as { event: { type: string; cost?: { total: number }; cacheHitRatio?: number } }).event,
        )
        .at(-1);
      // 5,000 fresh + 40 out, then 208 fresh + 4,992 cached + 10 out, at $1.25 / $0.125 / $10 per 1M
      const total = (5000 * 1.25 + 40 * 10 + 208 * 1.25 + 4992 * 0.125 + 10 * 10) / 1e6;
      expect(completed).toMatchObject({ type: 'run.completed' });
      expect(completed?.cost?.total).toBeCloseTo(total, 12);
      expect(completed?.cacheHitRatio).toBeCloseTo(4992 / 10_200, 12);

      const inspected = await forge(['inspect', '--last', '--cwd', workspace.path]);
      expect(inspected.code).toBe(0);
      const { header, rows } = budgetTable(inspected.stdout, 2);
      expect(header.slice(-6)).toEqual(['estimate', 'input', 'cached', 'cost', 'error', 'note']);
      expect(rows.map((row) => row.slice(-3, -1))).toEqual([
        ['0', '$0.00665'],
        ['4,992', '$0.000984'],
      ]);
      expect(inspected.stdout).toContain(
        '  cost         $0.00763 (fresh input $0.00651 · cached $0.000624 · output $0.0005)\n',
      );
    } finally {
      await provider.close();
    }
  });

  it('handles SIGINT in the REPL: the first warns, the second exits', async () => {
    const child = spawn(process.execPath, [bin, '--cwd', workspace.path], {
      env: { PATH: process.env.PATH ?? '', FORGE_HOME: forgeHome.path },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    await waitFor(
      () => stdout,
      (text) => text.includes('Type a request'),
    );
    child.kill('SIGINT');
    await waitFor(
      () => stdout,
      (text) => text.includes('(press Ctrl-C again to exit)'),
    );
    child.kill('SIGINT');
    expect(await closed).toBe(0);
  });
});

describe('the forge binary with the Codex engine and import', () => {
  it('continues one Codex thread across two processes (thread/resume), and refuses a file that is not a rollout', async () => {
    const directories = await createCodexDirectories();
    const provider = await startLoopbackResponsesServer([
      { items: [assistantMessage('First, from Codex.')] },
      { items: [assistantMessage('Second, same thread.')] },
    ]);
    try {
      await writeLoopbackConfig(directories.codexHome, provider.baseUrl);
      const env = { ...(directories.environment as Record<string, string>), FORGE_HOME: forgeHome.path };
      const first = await forge(['run', '--engine', 'codex', '--json', 'Name this project'], {
        cwd: directories.workspace,
        env,
      });
      expect(first.code).toBe(0);
      const sessionId = (JSON.parse(first.stdout.split('\n')[0] ?? '{}') as { sessionId?: string }).sessionId ?? '';
      const second = await forge(['run', '--engine', 'codex', '--resume', sessionId, 'And again'], {
        cwd: directories.workspace,
        env,
      });
      expect(second.code).toBe(0);
      expect(second.stdout).toBe('Second, same thread.\n');
      expect(second.stderr).toContain("sent only the request to the session's Codex thread");
      expect(JSON.stringify(provider.requests[1]?.body.input)).toContain('First, from Codex.');

      const garbage = path.join(directories.root, 'garbage.jsonl');
      await writeFile(garbage, 'not a rollout\n');
      const refused = await forge(['import', 'codex', garbage, '--session'], { cwd: directories.workspace, env });
      expect(refused).toMatchObject({ code: 2, stdout: '' });
      expect(refused.stderr).toBe(
        `forge: error: ${garbage} is not a Codex rollout: it has no session metadata and no turns; pass a rollout-*.jsonl file from $CODEX_HOME/sessions\n`,
      );
    } finally {
      await provider.close();
      await rm(directories.root, { recursive: true, force: true });
    }
  }, 60_000);
});
