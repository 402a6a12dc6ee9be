import { readFileSync } from 'node:fs';

/** Replaced with the package version by the esbuild bundle; undefined when running from sources. */
declare const FORGE_VERSION: string | undefined;

/** The version of `@forge/cli`, as `forge --version` prints it. */
export function forgeVersion(): string {
  if (typeof FORGE_VERSION === 'string') return FORGE_VERSION;
  const manifest: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  if (
    typeof manifest === 'object' &&
    manifest !== null &&
    'version' in manifest &&
    typeof manifest.version === 'string'
  ) {
    return manifest.version;
  }
  return '0.0.0';
}
