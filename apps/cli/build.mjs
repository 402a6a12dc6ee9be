// Bundles the CLI with code splitting so `forge --help` loads only the command table;
// every command's implementation is a separate chunk imported on first use.
// `node build.mjs [outdir]` (default dist): tests build a private copy so parallel builds never collide.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const manifest = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const thirdParty = Object.keys(manifest.dependencies).filter((name) => !name.startsWith('@forge/'));

const outdir = resolve(fileURLToPath(new URL('.', import.meta.url)), process.argv[2] ?? 'dist');
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { main: 'src/main.ts', index: 'src/index.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  conditions: ['@forge/source'],
  external: thirdParty,
  define: { FORGE_VERSION: JSON.stringify(manifest.version) },
  logLevel: 'warning',
});
