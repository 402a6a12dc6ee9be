// Bundles the CLI with code splitting so `forge --help` loads only the command table;
// every command's implementation is a separate chunk imported on first use.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';

const manifest = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const thirdParty = Object.keys(manifest.dependencies).filter((name) => !name.startsWith('@forge/'));

rmSync(new URL('./dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: { main: 'src/main.ts', index: 'src/index.ts' },
  outdir: 'dist',
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
