import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where Debian's `chromium` package puts the browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Flags for a headless Chromium that makes no request of its own (updates, sync, QUIC probes). */
export const CHROMIUM_ARGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

async function executable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Returns the path of Debian's Chromium, installing the `chromium` package with apt-get first
 * when it is missing (the test set-up runs as root on CI and on developer machines). Throws
 * with what to do when it cannot be installed; tests that need a browser fail rather than skip.
 */
export async function ensureChromium(): Promise<string> {
  if (await executable(CHROMIUM_PATH)) return CHROMIUM_PATH;
  if (process.getuid?.() !== 0) {
    throw new Error(`Chromium is not installed at ${CHROMIUM_PATH} and this test is not running as root, so it cannot install it. Run: sudo apt-get update && sudo apt-get install -y chromium`);
  }
  const environment = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    await run('apt-get', ['update'], { env: environment, maxBuffer: 64 * 1024 * 1024 });
    await run('apt-get', ['install', '-y', 'chromium'], { env: environment, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(`Installing Chromium with apt-get failed (${detail.slice(0, 2000)}). Install it by hand: apt-get update && apt-get install -y chromium`, { cause: error });
  }
  if (!(await executable(CHROMIUM_PATH))) {
    throw new Error(`apt-get installed the chromium package, but ${CHROMIUM_PATH} is still missing; check the package's contents with dpkg -L chromium.`);
  }
  return CHROMIUM_PATH;
}
