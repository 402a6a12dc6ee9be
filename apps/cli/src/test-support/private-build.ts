import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDirectory = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Bundles the CLI into a private directory under node_modules/.cache (so a parallel build of
 * dist/ never changes files under a running test) and returns its `bin/forge.js` and a remover.
 * Inside the package, so the bundle resolves its external dependencies as the shipped one does.
 */
export function buildPrivateBinary(name: string): { readonly bin: string; remove(): void } {
  const directory = path.join(packageDirectory, 'node_modules', '.cache', `forge-${name}-${process.pid}`);
  execFileSync(process.execPath, ['build.mjs', path.relative(packageDirectory, path.join(directory, 'dist'))], { cwd: packageDirectory, stdio: 'inherit' });
  const bin = path.join(directory, 'bin', 'forge.js');
  mkdirSync(path.dirname(bin), { recursive: true });
  copyFileSync(path.join(packageDirectory, 'bin', 'forge.js'), bin);
  return { bin, remove: () => rmSync(directory, { recursive: true, force: true }) };
}

/** What a spawned `forge` printed and how it exited. */
export interface SpawnedForge {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly durationMs: number;
  /** True when it was still running at `timeoutMs` and was killed (SIGKILL). */
  readonly timedOut: boolean;
}

/**
 * Runs `node <bin> ...args` as a user would, with exactly `env` as its environment; `user` runs it
 * as another uid/gid (a test running as root checks what an ordinary user meets). With
 * `timeoutMs`, a process still running then is killed and reported as timed out: a hang fails
 * the test that caused it instead of the whole run.
 */
export function spawnForge(
  bin: string,
  args: readonly string[],
  options: {
    readonly cwd: string;
    readonly env: Readonly<Record<string, string>>;
    readonly user?: { readonly uid: number; readonly gid: number };
    readonly timeoutMs?: number;
  },
): Promise<SpawnedForge> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, [bin, ...args], { cwd: options.cwd, env: { ...options.env }, stdio: ['ignore', 'pipe', 'pipe'], ...options.user });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            child.kill('SIGKILL');
          }, options.timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, durationMs: Date.now() - started, timedOut });
    });
  });
}
