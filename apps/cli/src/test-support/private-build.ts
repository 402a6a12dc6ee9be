import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDirectory = fileURLToPath(new URL('../..', import.meta.url));

/** A private build of the shipped CLI. */
export interface PrivateBinary {
  /** Its `bin/forge.js`: run it with `node`. */
  readonly bin: string;
  /** The bundle's output directory (`main.js`, `index.js` and the chunks). */
  readonly dist: string;
  remove(): void;
}

/**
 * Bundles the CLI into a private directory under node_modules/.cache (so a parallel build of
 * dist/ never changes files under a running test) and returns its `bin/forge.js` and a remover.
 * Inside the package, so the bundle resolves its external dependencies as the shipped one does.
 */
export function buildPrivateBinary(name: string): PrivateBinary {
  const directory = path.join(packageDirectory, 'node_modules', '.cache', `forge-${name}-${process.pid}`);
  const dist = path.join(directory, 'dist');
  execFileSync(process.execPath, ['build.mjs', path.relative(packageDirectory, dist)], {
    cwd: packageDirectory,
    stdio: 'inherit',
  });
  const bin = path.join(directory, 'bin', 'forge.js');
  mkdirSync(path.dirname(bin), { recursive: true });
  copyFileSync(path.join(packageDirectory, 'bin', 'forge.js'), bin);
  return { bin, dist, remove: () => rmSync(directory, { recursive: true, force: true }) };
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

export interface SpawnOptions {
  readonly cwd: string;
  /** The whole environment of the process: nothing else is inherited. */
  readonly env: Readonly<Record<string, string>>;
  /** Run as another uid/gid (a test running as root checks what an ordinary user meets). */
  readonly user?: { readonly uid: number; readonly gid: number };
  /** A process still running then is killed (SIGKILL) and reported as timed out: a hang fails the test that caused it, not the whole run. */
  readonly timeoutMs?: number;
}

/** A `forge` still running: its process, what it printed so far, and its end (with the signal that ended it, if one did). */
export interface ForgeProcess {
  readonly child: ChildProcess;
  readonly output: { readonly stdout: string; readonly stderr: string };
  readonly ended: Promise<SpawnedForge & { readonly signal: NodeJS.Signals | null }>;
}

/** Starts `node <bin> ...args` as a user would, with no input, and returns without waiting for it. */
export function startForge(bin: string, args: readonly string[], options: SpawnOptions): ForgeProcess {
  const started = Date.now();
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: options.cwd,
    env: { ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...options.user,
  });
  const output = { stdout: '', stderr: '' };
  let timedOut = false;
  const timer =
    options.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          child.kill('SIGKILL');
        }, options.timeoutMs);
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const ended = new Promise<SpawnedForge & { readonly signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, ...output, durationMs: Date.now() - started, timedOut });
    });
  });
  return { child, output, ended };
}

/** Runs `node <bin> ...args` as a user would, with exactly `env` as its environment, to its end. */
export async function spawnForge(bin: string, args: readonly string[], options: SpawnOptions): Promise<SpawnedForge> {
  const { code, stdout, stderr, durationMs, timedOut } = await startForge(bin, args, options).ended;
  return { code, stdout, stderr, durationMs, timedOut };
}
