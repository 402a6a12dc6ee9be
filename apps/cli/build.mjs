// Bundles the CLI with code splitting so `forge --help` loads only the command table;
// every command's implementation is a separate chunk imported on first use.
// `node build.mjs [outdir]` (default dist): tests build a private copy so parallel builds never collide.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const manifest = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
// Third-party packages the CLI declares stay external and load from node_modules at run time.
// A package that reaches Node built-ins through CommonJS `require` (the MCP SDK's stdio transport,
// through cross-spawn) must be one of them: declare it in this package's dependencies.
const thirdParty = Object.keys(manifest.dependencies).filter((name) => !name.startsWith('@forge/'));

const outdir = resolve(fileURLToPath(new URL('.', import.meta.url)), process.argv[2] ?? 'dist');
rmSync(outdir, { recursive: true, force: true });
const result = await build({
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
  metafile: true,
});

const dynamicRequires = findDynamicRequires(Object.keys(result.metafile.outputs));
if (dynamicRequires.length > 0) {
  rmSync(outdir, { recursive: true, force: true });
  console.error(
    [
      'build.mjs: the bundle would call `require` at run time, which an ES module bundle cannot do',
      '("Dynamic require of … is not supported"):',
      ...dynamicRequires.map((found) => `  ${found.chunk}: require(${found.specifier}) from ${found.module}`),
      'Add the package that contains it to the dependencies of apps/cli/package.json (same version) so it stays external.',
    ].join('\n'),
  );
  process.exit(1);
}

/**
 * esbuild turns a `require(x)` it cannot bundle in CommonJS code into `__require(x)`, which throws
 * in an ES module. Lists each one with the bundled module it sits in (the path comment before it).
 */
function findDynamicRequires(outputs) {
  const found = [];
  for (const output of outputs.filter((file) => file.endsWith('.js'))) {
    const source = readFileSync(output, 'utf8');
    const modules = [...source.matchAll(/^\/\/ (\S+)$/gm)].map((match) => ({ at: match.index, path: match[1] }));
    for (const match of source.matchAll(/(?<!function )\b__require(?:\.\w+)?\(\s*("[^"]*"|'[^']*'|[^)]*)\)/g)) {
      const module = modules.findLast((candidate) => candidate.at < match.index)?.path ?? 'an unknown module';
      found.push({ chunk: relative(outdir, resolve(output)), specifier: match[1], module });
    }
  }
  return found;
}
