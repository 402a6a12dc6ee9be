import { execFile, spawn } from 'node:child_process';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { packageFile } from './package-files.js';

/** The built, bundled `forge` as users run it: `bin/forge.js` next to its own `dist/`. */
export interface BundledForge {
  readonly bin: string;
  run(args: readonly string[], options: { readonly cwd: string; readonly env: Readonly<Record<string, string>>; readonly timeoutMs: number }): Promise<SpawnedForge>;
  remove(): Promise<void>;
}

export interface SpawnedForge {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly durationMs: number;
  /** True when the process had to be killed at `timeoutMs`. */
  readonly timedOut: boolean;
}

/**
 * Bundles the CLI with its own build script into a private directory inside the CLI package (so
 * its third-party dependencies resolve as they do for `dist/`, and a parallel build of `dist/`
 * never changes files under a running test).
 */
export async function buildBundledForge(name: string): Promise<BundledForge> {
  const cli = dirname(packageFile('@forge/cli', 'package.json'));
  const directory = join(cli, 'node_modules', '.cache', `forge-${name}-${process.pid}`);
  await promisify(execFile)(process.execPath, ['build.mjs', relative(cli, join(directory, 'dist'))], { cwd: cli });
  const bin = join(directory, 'bin', 'forge.js');
  await mkdir(dirname(bin), { recursive: true });
  await copyFile(join(cli, 'bin', 'forge.js'), bin);
  return {
    bin,
    run: (args, options) => spawnForge(bin, args, options),
    remove: () => rm(directory, { recursive: true, force: true }),
  };
}

function spawnForge(bin: string, args: readonly string[], options: { readonly cwd: string; readonly env: Readonly<Record<string, string>>; readonly timeoutMs: number }): Promise<SpawnedForge> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, [bin, ...args], { cwd: options.cwd, env: { PATH: process.env.PATH ?? '', ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, durationMs: Date.now() - started, timedOut });
    });
  });
}
