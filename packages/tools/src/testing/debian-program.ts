import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

async function executable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Returns `program` (an absolute path), installing Debian's `packageName` with apt-get first when
 * it is missing (the test set-up runs as root on CI and on developer machines). Throws with what
 * to do when it cannot be installed: tests that need the program fail rather than skip.
 */
export async function ensureDebianProgram(packageName: string, program: string): Promise<string> {
  if (await executable(program)) return program;
  const byHand = `apt-get update && apt-get install -y ${packageName}`;
  if (process.getuid?.() !== 0)
    throw new Error(
      `${program} is not installed and this test is not running as root, so it cannot install it. Run: sudo ${byHand}`,
    );
  const environment = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    await run('apt-get', ['update'], { env: environment, maxBuffer: 64 * 1024 * 1024 });
    await run('apt-get', ['install', '-y', packageName], { env: environment, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(
      `Installing ${packageName} with apt-get failed (${detail.slice(0, 2000)}). Install it by hand: ${byHand}`,
      { cause: error },
    );
  }
  if (!(await executable(program)))
    throw new Error(
      `apt-get installed the ${packageName} package, but ${program} is still missing; check the package's contents with dpkg -L ${packageName}.`,
    );
  return program;
}

/** Where Debian's `bubblewrap` package puts `bwrap`. */
export const BUBBLEWRAP_PATH = '/usr/bin/bwrap';

/** Debian's bubblewrap, installed with apt-get when missing; see {@link ensureDebianProgram}. */
export function ensureBubblewrap(): Promise<string> {
  return ensureDebianProgram('bubblewrap', BUBBLEWRAP_PATH);
}
