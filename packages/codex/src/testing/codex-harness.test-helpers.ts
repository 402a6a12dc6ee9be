import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveCodexBinary } from '../app-server/binary.js';
import { CodexAppServer, type CodexAppServerOptions } from '../app-server/client.js';
import { responsesProviderOverrides } from '../app-server/provider-config.js';
import {
  startLoopbackResponsesServer,
  type LoopbackResponsesServer,
  type ScriptedStep,
} from './loopback-responses.test-helpers.js';

/*
 * Runs the real Codex binary from the @openai/codex dev dependency against the loopback Responses
 * server, with CODEX_HOME, HOME and the workspace in fresh temporary directories and a minimal
 * environment (no API keys). The model slug is one Codex ships metadata for, so it offers its
 * usual tools (exec_command, apply_patch); every request still goes to 127.0.0.1.
 */

export const TEST_MODEL = 'gpt-5.5';

export interface CodexSandboxDirectories {
  readonly root: string;
  readonly codexHome: string;
  readonly workspace: string;
  readonly environment: NodeJS.ProcessEnv;
}

export async function createCodexDirectories(): Promise<CodexSandboxDirectories> {
  const root = await mkdtemp(join(tmpdir(), 'forge-codex-'));
  const codexHome = join(root, 'codex-home');
  const workspace = join(root, 'workspace');
  const home = join(root, 'home');
  await Promise.all([mkdir(codexHome), mkdir(workspace), mkdir(home)]);
  // Any HTTP(S) request that is not to 127.0.0.1 goes to a closed local port and fails.
  const deadProxy = 'http://127.0.0.1:9';
  const environment: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: home,
    CODEX_HOME: codexHome,
    LANG: 'C.UTF-8',
    HTTP_PROXY: deadProxy,
    HTTPS_PROXY: deadProxy,
    ALL_PROXY: deadProxy,
    NO_PROXY: '127.0.0.1,localhost',
  };
  return { root, codexHome, workspace, environment };
}

/** `providerName: 'OpenAI'` makes Codex use remote compaction (a `compaction_trigger` request). */
export function loopbackOverrides(baseUrl: string, providerName = 'mock'): string[] {
  return [
    ...responsesProviderOverrides({ id: 'loopback', name: providerName, baseUrl, model: TEST_MODEL }),
    'check_for_update_on_startup=false',
  ];
}

/** Points Codex at the loopback provider the way a user would: a `config.toml` in `codexHome`. */
export async function writeLoopbackConfig(codexHome: string, baseUrl: string): Promise<void> {
  await writeFile(
    join(codexHome, 'config.toml'),
    [
      `model = "${TEST_MODEL}"`,
      'model_provider = "loopback"',
      'check_for_update_on_startup = false',
      '',
      '[model_providers.loopback]',
      'name = "mock"',
      `base_url = "${baseUrl}"`,
      'wire_api = "responses"',
      '',
    ].join('\n'),
  );
}

export interface CodexHarness extends CodexSandboxDirectories {
  readonly provider: LoopbackResponsesServer;
  /** The running server (a new one after `restart`). */
  readonly server: CodexAppServer;
  /** Stops the App Server and starts a new one with the same CODEX_HOME and settings. */
  restart(): Promise<CodexAppServer>;
  dispose(): Promise<void>;
}

export async function startCodexHarness(
  options: {
    readonly steps?: readonly ScriptedStep[];
    readonly providerName?: string;
    readonly server?: Partial<CodexAppServerOptions>;
  } = {},
): Promise<CodexHarness> {
  const directories = await createCodexDirectories();
  const provider = await startLoopbackResponsesServer(options.steps ?? []);
  const start = () =>
    CodexAppServer.start({
      env: directories.environment,
      codexHome: directories.codexHome,
      configOverrides: loopbackOverrides(provider.baseUrl, options.providerName),
      ...options.server,
    });
  try {
    let server = await start();
    return {
      ...directories,
      provider,
      get server() {
        return server;
      },
      restart: async () => {
        await server.close();
        server = await start();
        return server;
      },
      dispose: async () => {
        await server.close();
        await provider.close();
        await rm(directories.root, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await provider.close();
    await rm(directories.root, { recursive: true, force: true });
    throw error;
  }
}

/** Runs `codex exec` once against the loopback provider and returns its stdout. */
export async function runCodexExec(
  directories: CodexSandboxDirectories,
  baseUrl: string,
  prompt: string,
  extraArguments: readonly string[] = [],
): Promise<string> {
  const binary = resolveCodexBinary({ env: directories.environment });
  const args = [
    'exec',
    '--skip-git-repo-check',
    ...loopbackOverrides(baseUrl).flatMap((override) => ['-c', override]),
    ...extraArguments,
    prompt,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(binary.path, args, {
      cwd: directories.workspace,
      env: directories.environment,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else reject(new Error(`codex exec exited with ${String(code)}:\n${stderr}`));
    });
  });
}

/** Every rollout file under `CODEX_HOME/sessions`, sorted by path. */
export async function findRollouts(codexHome: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (directory: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(directory, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.name.startsWith('rollout-') && entry.name.endsWith('.jsonl')) found.push(path);
    }
  };
  await walk(join(codexHome, 'sessions'));
  return found.sort();
}
