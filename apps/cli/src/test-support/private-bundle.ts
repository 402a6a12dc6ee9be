import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * The shipped CLI for tests that run it as a user does: `build.mjs` bundles it into a private
 * directory (so a parallel build of dist/ never changes files under a running test) beside a copy
 * of bin/forge.js. The directory sits under apps/cli/node_modules so the packages the bundle
 * keeps external resolve exactly as they do for dist/.
 */

const packageDirectory = fileURLToPath(new URL('../..', import.meta.url));

export interface PrivateBundle {
  /** `bin/forge.js` of the private copy: run it with `node`. */
  readonly bin: string;
  /** The bundle's output directory (`main.js`, `index.js` and the chunks). */
  readonly dist: string;
  /** Deletes the private copy. */
  remove(): void;
}

/** Bundles the CLI with `build.mjs` into a directory named after `label` and this process. */
export function buildPrivateBundle(label: string): PrivateBundle {
  const directory = path.join(packageDirectory, 'node_modules', '.cache', `${label}-${process.pid}`);
  const dist = path.join(directory, 'dist');
  execFileSync(process.execPath, ['build.mjs', path.relative(packageDirectory, dist)], { cwd: packageDirectory, stdio: 'inherit' });
  const bin = path.join(directory, 'bin', 'forge.js');
  mkdirSync(path.dirname(bin), { recursive: true });
  copyFileSync(path.join(packageDirectory, 'bin', 'forge.js'), bin);
  return { bin, dist, remove: () => rmSync(directory, { recursive: true, force: true }) };
}

export interface SpawnedForge {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface ForgeProcess {
  readonly child: ChildProcess;
  /** Everything printed so far. */
  readonly output: { readonly stdout: string; readonly stderr: string };
  /** Resolves when the process has exited and its streams are closed. */
  readonly ended: Promise<SpawnedForge>;
}

/**
 * Starts `node <bin> <args>` with exactly `env` as its environment (nothing else is inherited)
 * and stdin closed, or fed `stdin` when given.
 */
export function startForge(bin: string, args: readonly string[], options: { readonly cwd: string; readonly env: Readonly<Record<string, string>>; readonly stdin?: string }): ForgeProcess {
  const child = spawn(process.execPath, [bin, ...args], { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  child.stdout?.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  child.stdin?.end(options.stdin);
  const ended = new Promise<SpawnedForge>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, ...output }));
  });
  return { child, output, ended };
}

/** Runs `node <bin> <args>` to the end; see {@link startForge}. */
export function runForge(bin: string, args: readonly string[], options: Parameters<typeof startForge>[2]): Promise<SpawnedForge> {
  return startForge(bin, args, options).ended;
}
