import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDirectory = fileURLToPath(new URL('../..', import.meta.url));

/** The `forge` binary bundled into a private directory, so a parallel build of dist/ never changes it under a test. */
export interface PrivateBundle {
  /** The `bin/forge.js` to run with node. */
  readonly bin: string;
  /** Runs `forge <args>` as a child process with exactly `env` (plus PATH) and stdin closed. */
  run(args: readonly string[], options: { readonly cwd: string; readonly env: Record<string, string> }): Promise<BinaryOutcome>;
  remove(): void;
}

/** What a run of the binary printed and how it exited. */
export interface BinaryOutcome {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `node <bin> <args>` as a child process with exactly `env` (plus PATH) and stdin closed. */
export function runBinary(bin: string, args: readonly string[], options: { readonly cwd: string; readonly env: Record<string, string> }): Promise<BinaryOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: options.cwd, env: { PATH: process.env.PATH ?? '', ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Bundles the CLI with `build.mjs` into `node_modules/.cache/<name>-<pid>`. */
export function buildPrivateBundle(name: string): PrivateBundle {
  const directory = path.join(packageDirectory, 'node_modules', '.cache', `${name}-${process.pid}`);
  const bin = path.join(directory, 'bin', 'forge.js');
  execFileSync(process.execPath, ['build.mjs', path.relative(packageDirectory, path.join(directory, 'dist'))], { cwd: packageDirectory, stdio: 'inherit' });
  mkdirSync(path.dirname(bin), { recursive: true });
  copyFileSync(path.join(packageDirectory, 'bin', 'forge.js'), bin);
  return {
    bin,
    run: (args, options) => runBinary(bin, args, options),
    remove: () => rmSync(directory, { recursive: true, force: true }),
  };
}
