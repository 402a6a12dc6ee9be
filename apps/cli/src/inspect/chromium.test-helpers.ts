import { ensureDebianProgram } from '@forge/tools/testing';

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

/**
 * Returns the path of Debian's Chromium, installing the `chromium` package with apt-get first
 * when it is missing; see `ensureDebianProgram`.
 */
export function ensureChromium(): Promise<string> {
  return ensureDebianProgram('chromium', CHROMIUM_PATH);
}
