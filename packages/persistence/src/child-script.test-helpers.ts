import { join } from 'node:path';
import { build } from 'esbuild';

/**
 * Bundles a child-process entry of a crash test (a `*.test-helpers.ts` beside it) into one ESM
 * file in `directory`, so `node <file>` runs it without a TypeScript loader. Returns its path.
 */
export async function bundleChildScript(entry: string, directory: string): Promise<string> {
  const outfile = join(directory, `${entry.replace(/^.*\//, '').replace(/\.test-helpers\.ts$/, '')}.mjs`);
  await build({
    entryPoints: [join(import.meta.dirname, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['@forge/source'],
    logLevel: 'silent',
  });
  return outfile;
}
