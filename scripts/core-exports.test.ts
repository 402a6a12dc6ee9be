import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageDirectories, REPOSITORY_ROOT, sourceFiles } from './repository.test-helpers.js';

/*
 * `@forge/core` keeps a small root (the run loop, messages, the adapter and tool contracts,
 * events, errors, ids) and puts everything else behind subpaths. This test keeps it that way:
 * the root stays at most 50 runtime values, every entry point names its exports (no
 * `export *`), no name has two homes, and every name an entry point exports is imported from it
 * somewhere outside core — an export nobody outside uses is an internal and fails here by name.
 */

const root = REPOSITORY_ROOT;
const coreDir = join(root, 'packages', 'core');
const MAX_ROOT_VALUES = 50;

interface Manifest {
  readonly exports: Record<string, string | Record<string, string>>;
}

/** Every entry point of `@forge/core` with its source file, from the manifest's `@forge/source` condition. */
function entryPoints(): { specifier: string; source: string }[] {
  const manifest = JSON.parse(readFileSync(join(coreDir, 'package.json'), 'utf8')) as Manifest;
  return Object.entries(manifest.exports).flatMap(([subpath, target]) => {
    if (typeof target === 'string') return [];
    const source = target['@forge/source'];
    if (source === undefined) return [];
    return [
      { specifier: subpath === '.' ? '@forge/core' : `@forge/core/${subpath.slice(2)}`, source: join(coreDir, source) },
    ];
  });
}

interface ExportedName {
  readonly name: string;
  readonly typeOnly: boolean;
}

/** The names an entry file re-exports; entry files only re-export, by name. */
function exportedNames(text: string): ExportedName[] {
  const names: ExportedName[] = [];
  for (const match of text.matchAll(/export\s+(type\s+)?\{([^}]*)\}\s*from/g)) {
    for (const item of (match[2] ?? '').split(',')) {
      const trimmed = item.trim();
      if (trimmed === '') continue;
      const typeOnly = match[1] !== undefined || trimmed.startsWith('type ');
      const name = trimmed
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .pop()!
        .trim();
      names.push({ name, typeOnly });
    }
  }
  return names;
}

/** Tests, their helpers and test-only packages: an export only they import is an internal. */
function isTestCode(file: string): boolean {
  const path = relative(root, file);
  return (
    /\.test(-helpers)?\.[cm]?[jt]s$/.test(path) ||
    /(^|\/)(testing|test-support|test-helpers|test-server)\//.test(path) ||
    path.startsWith('tests/') ||
    path.startsWith('scripts/')
  );
}

/** Every name imported from each `@forge/core` entry point by product code outside packages/core (tests do not count). */
function namesImportedOutsideCore(): Map<string, Set<string>> {
  const imported = new Map<string, Set<string>>();
  const add = (specifier: string, name: string): void => {
    const set = imported.get(specifier) ?? new Set<string>();
    set.add(name);
    imported.set(specifier, set);
  };
  const specifier = `(@forge\\/core(?:\\/[a-z-]+)?)`;
  const statements = new RegExp(`(?:import|export)\\s+(?:type\\s+)?\\{([^}]*)\\}\\s*from\\s*['"]${specifier}['"]`, 'g');
  const dynamic = new RegExp(`\\{([^}]*)\\}\\s*=\\s*await\\s+import\\(\\s*['"]${specifier}['"]\\s*\\)`, 'g');
  const typeQueries = new RegExp(`import\\(\\s*['"]${specifier}['"]\\s*\\)\\.(\\w+)`, 'g');
  for (const dir of [...packageDirectories(), join(root, 'scripts')]) {
    if (dir === coreDir) continue;
    for (const file of sourceFiles(dir).filter((candidate) => !isTestCode(candidate))) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(statements)) {
        for (const item of match[1]!.split(',')) {
          const name = item
            .trim()
            .replace(/^type\s+/, '')
            .split(/\s+as\s+/)[0]!
            .trim();
          if (name !== '') add(match[2]!, name);
        }
      }
      for (const match of text.matchAll(dynamic)) {
        for (const item of match[1]!.split(',')) {
          const name = item.split(':')[0]!.trim();
          if (name !== '') add(match[2]!, name);
        }
      }
      for (const match of text.matchAll(typeQueries)) add(match[1]!, match[2]!);
    }
  }
  return imported;
}

/**
 * Entry points for tests only: `testing` (scripted models) and `internals` (what the reliability
 * suites and other packages' tests drive directly). `internals` is source-only, never in `dist/`.
 * `observers` is the plugin API for applications embedding `runAgent`, which no Forge command uses.
 */
const TEST_ONLY_ENTRIES = new Set(['@forge/core/testing', '@forge/core/internals', '@forge/core/observers']);

describe('@forge/core exports', () => {
  const entries = entryPoints();

  it('declares the root and its subpaths', () => {
    expect(entries.map((entry) => entry.specifier).sort()).toEqual([
      '@forge/core',
      '@forge/core/budget',
      '@forge/core/checkpoint',
      '@forge/core/compaction',
      '@forge/core/engine',
      '@forge/core/events',
      '@forge/core/internals',
      '@forge/core/observers',
      '@forge/core/pricing',
      '@forge/core/redaction',
      '@forge/core/terminal',
      '@forge/core/testing',
      '@forge/core/view',
    ]);
  });

  it(`keeps the root at most ${MAX_ROOT_VALUES} runtime values`, async () => {
    const values = Object.keys(await import('@forge/core'));
    expect(values.length, `the root exports ${values.length} values: ${values.sort().join(', ')}`).toBeLessThanOrEqual(
      MAX_ROOT_VALUES,
    );
  });

  it('keeps the internals out of product code and out of dist/', () => {
    const manifest = JSON.parse(readFileSync(join(coreDir, 'package.json'), 'utf8')) as Manifest;
    expect(manifest.exports['./internals']).toEqual({ '@forge/source': './src/internals.ts' });
    const offenders = [...packageDirectories(), join(root, 'scripts')]
      .filter((dir) => dir !== coreDir)
      .flatMap((dir) => sourceFiles(dir))
      .filter((file) => !isTestCode(file) && readFileSync(file, 'utf8').includes("'@forge/core/internals'"))
      .map((file) => relative(root, file));
    expect(offenders, 'product code imports @forge/core/internals').toEqual([]);
  });

  it('names every export (no export *), and each runtime value is what the module really exports', async () => {
    for (const entry of entries) {
      const text = readFileSync(entry.source, 'utf8');
      expect(text, `${entry.specifier} uses export *`).not.toMatch(/export\s+\*/);
      const declared = exportedNames(text)
        .filter((name) => !name.typeOnly)
        .map((name) => name.name)
        .sort();
      const loaded = Object.keys((await import(entry.specifier)) as object).sort();
      expect(loaded, entry.specifier).toEqual(declared);
    }
  });

  it('gives every name one home', () => {
    const homes = new Map<string, string>();
    const twice: string[] = [];
    for (const entry of entries) {
      for (const { name } of exportedNames(readFileSync(entry.source, 'utf8'))) {
        const other = homes.get(name);
        if (other !== undefined) twice.push(`${name}: ${other} and ${entry.specifier}`);
        homes.set(name, entry.specifier);
      }
    }
    expect(twice).toEqual([]);
  });

  it('exports nothing that no product file outside core imports (tests do not count)', () => {
    const imported = namesImportedOutsideCore();
    const unused = entries
      .filter((entry) => !TEST_ONLY_ENTRIES.has(entry.specifier))
      .flatMap((entry) =>
        exportedNames(readFileSync(entry.source, 'utf8'))
          .filter(({ name }) => !imported.get(entry.specifier)?.has(name))
          .map(({ name }) => `${name} (${entry.specifier}, ${relative(root, entry.source)})`),
      );
    expect(unused, 'exported but never imported outside packages/core: stop exporting them').toEqual([]);
  });
});
