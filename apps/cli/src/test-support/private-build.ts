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
}

/**
 * Runs `node <bin> ...args` as a user would, with exactly `env` as its environment; `user` runs it
 * as another uid/gid (a test running as root checks what an ordinary user meets).
 */
export function spawnForge(
  bin: string,
  args: readonly string[],
  options: { readonly cwd: string; readonly env: Readonly<Record<string, string>>; readonly user?: { readonly uid: number; readonly gid: number } },
): Promise<SpawnedForge> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: options.cwd, env: { ...options.env }, stdio: ['ignore', 'pipe', 'pipe'], ...options.user });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
