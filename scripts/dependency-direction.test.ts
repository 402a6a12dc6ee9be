import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageDirectories, REPOSITORY_ROOT, sourceFiles } from './repository.test-helpers.js';

/*
 * Dependencies point one way: cli → sessions → adapters / persistence / tools / config → core.
 * This test reads every workspace manifest and every import in every package (and in scripts/),
 * so a wrong-way import fails CI instead of waiting for a reviewer to notice. A relative import
 * may not leave its package either: another package is reached by name, through its `exports`,
 * so the dependency is declared and visible here.
 */

const root = REPOSITORY_ROOT;

const layers: Record<string, { layer: number; allowed: readonly string[] }> = {
  '@forge/core': { layer: 0, allowed: [] },
  /** Reads files Forge opens on its own (regular files only, never blocking, within a size), splits JSON lines, writes atomically; no Forge dependency. */
  '@forge/bounded-read': { layer: 1, allowed: [] },
  /** The server list schema comes from `@forge/mcp/config` (zod only, no MCP SDK). */
  '@forge/config': { layer: 1, allowed: ['@forge/core', '@forge/mcp', '@forge/bounded-read'] },
  '@forge/persistence': { layer: 1, allowed: ['@forge/core', '@forge/bounded-read'] },
  '@forge/tools': { layer: 1, allowed: ['@forge/core', '@forge/bounded-read'] },
  /** The OAuth credential files of remote servers are written with bounded-read's atomic write. */
  '@forge/mcp': { layer: 1, allowed: ['@forge/core', '@forge/bounded-read'] },
  '@forge/model-openai': { layer: 1, allowed: ['@forge/core', '@forge/ai-sdk-bridge', '@forge/loopback-provider'] },
  '@forge/model-deepseek': { layer: 1, allowed: ['@forge/core', '@forge/ai-sdk-bridge', '@forge/loopback-provider'] },
  '@forge/model-compatible': { layer: 1, allowed: ['@forge/core', '@forge/ai-sdk-bridge', '@forge/loopback-provider'] },
  '@forge/model-anthropic': { layer: 1, allowed: ['@forge/core', '@forge/ai-sdk-bridge', '@forge/loopback-provider'] },
  /** Shared AI SDK plumbing of the adapters (the adapter skeleton, settings, streaming, errors, retries); its README example uses the loopback provider. */
  '@forge/ai-sdk-bridge': { layer: 1, allowed: ['@forge/core', '@forge/loopback-provider'] },
  /** Test-only provider server; adapters use it as a devDependency. */
  '@forge/loopback-provider': { layer: 1, allowed: ['@forge/core'] },
  /** A conversation that persists: opens a session, runs turns through core's `runAgent`, chooses the view, compacts; persistence keeps its files. */
  '@forge/sessions': { layer: 2, allowed: ['@forge/core', '@forge/persistence'] },
  /** The Codex engine runs session turns (`@forge/codex/session-engine` over sessions and persistence); the rollout importer hashes touched files with the tools' workspace hasher. */
  '@forge/codex': {
    layer: 3,
    allowed: ['@forge/core', '@forge/bounded-read', '@forge/tools', '@forge/persistence', '@forge/sessions'],
  },
  /** The agent Forge ships, assembled once for the CLI and the evals: the provider registry (`provider:id` → adapter, with calibration), tools, system prompt, context-tool offer, instructions, a stored turn's options. */
  '@forge/agent': {
    layer: 3,
    allowed: [
      '@forge/core',
      '@forge/sessions',
      '@forge/tools',
      '@forge/config',
      '@forge/persistence',
      '@forge/model-openai',
      '@forge/model-deepseek',
      '@forge/model-compatible',
      '@forge/model-anthropic',
    ],
  },
  /** The eval harness drives sessions through sessions, persistence, tools and core; `forge eval` runs it. */
  '@forge/evals': { layer: 4, allowed: ['*'] },
  '@forge/cli': { layer: 5, allowed: ['*'] },
  /** Reliability and security suites: they drive every package, the CLI included, and nothing depends on them. */
  '@forge/reliability-tests': { layer: 6, allowed: ['*'] },
  /** The built `forge` binary run against real programs (MCP servers, Codex, Chromium); nothing depends on them. */
  '@forge/bundle-tests': { layer: 6, allowed: ['*'] },
  /** The adapter conformance table: every adapter against the loopback provider; nothing depends on it. */
  '@forge/adapter-tests': {
    layer: 6,
    allowed: [
      '@forge/core',
      '@forge/ai-sdk-bridge',
      '@forge/loopback-provider',
      '@forge/model-openai',
      '@forge/model-deepseek',
      '@forge/model-compatible',
      '@forge/model-anthropic',
    ],
  },
  /** The repository root: benchmarks and repository-wide tests in scripts/; nothing depends on it. */
  'forge-monorepo': { layer: 7, allowed: ['*'] },
};

/** Node built-ins core may not use: it owns no file-system or process logic. */
const coreForbiddenBuiltins = [
  'node:fs',
  'node:fs/promises',
  'node:path',
  'node:child_process',
  'node:os',
  'fs',
  'path',
  'child_process',
  'os',
];

interface WorkspacePackage {
  readonly name: string;
  readonly dir: string;
  /** The files whose imports are checked: the whole package, or `scripts/` for the repository root. */
  readonly sourceDir: string;
  readonly dependencies: readonly string[];
}

function workspacePackages(): WorkspacePackage[] {
  return [...packageDirectories(), root].map((dir) => {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      name: string;
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    return {
      name: manifest.name,
      dir,
      sourceDir: dir === root ? join(root, 'scripts') : dir,
      dependencies: Object.keys({ ...manifest.dependencies, ...manifest.devDependencies }).filter((name) =>
        name.startsWith('@forge/'),
      ),
    };
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers: string[] = [];
  for (const match of text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"]([^'"]+)['"]/g)) {
    if (match[1] !== undefined) specifiers.push(match[1]);
  }
  return specifiers;
}

/** A relative import that resolves outside its own package (or outside scripts/ for the root). */
function leavesPackage(file: string, specifier: string, sourceDir: string, packageDir: string): boolean {
  if (!specifier.startsWith('.')) return false;
  const target = resolve(dirname(file), specifier);
  const home = packageDir === root ? sourceDir : packageDir;
  return target !== home && !target.startsWith(home + sep);
}

function isAllowed(from: string, to: string): boolean {
  if (from === to) return true;
  const rule = layers[from];
  if (rule === undefined) return false;
  return rule.allowed.includes('*') ? (layers[to]?.layer ?? Infinity) < rule.layer : rule.allowed.includes(to);
}

describe('dependency direction', () => {
  const packages = workspacePackages();

  it('knows every workspace package', () => {
    expect(packages.length).toBeGreaterThanOrEqual(5);
    for (const pkg of packages)
      expect(Object.keys(layers), `unknown package ${pkg.name}: give it a layer`).toContain(pkg.name);
  });

  it('declares only dependencies that point toward core', () => {
    const wrong = packages.flatMap((pkg) =>
      pkg.dependencies.filter((dep) => !isAllowed(pkg.name, dep)).map((dep) => `${pkg.name} → ${dep}`),
    );
    expect(wrong).toEqual([]);
  });

  it('imports only packages it may depend on, by name, and core no file-system or process modules', () => {
    const wrong: string[] = [];
    for (const pkg of packages) {
      let files: string[];
      try {
        files = sourceFiles(pkg.sourceDir);
      } catch {
        continue;
      }
      for (const file of files) {
        for (const specifier of importsOf(file)) {
          const where = relative(root, file);
          const target = specifier.match(/^(@forge\/[^/]+)/)?.[1];
          if (target !== undefined && !isAllowed(pkg.name, target)) wrong.push(`${where} imports ${specifier}`);
          if (pkg.name === '@forge/core' && coreForbiddenBuiltins.includes(specifier))
            wrong.push(`${where} imports ${specifier}`);
          if (leavesPackage(file, specifier, pkg.sourceDir, pkg.dir))
            wrong.push(`${where} imports ${specifier}, outside its package: import the package by name`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('catches a wrong-way import (self-check of the rule)', () => {
    expect(isAllowed('@forge/core', '@forge/tools')).toBe(false);
    expect(isAllowed('@forge/tools', '@forge/persistence')).toBe(false);
    expect(isAllowed('@forge/persistence', '@forge/sessions')).toBe(false);
    expect(isAllowed('@forge/sessions', '@forge/persistence')).toBe(true);
    expect(isAllowed('@forge/model-openai', '@forge/model-deepseek')).toBe(false);
    expect(isAllowed('@forge/cli', '@forge/tools')).toBe(true);
    expect(isAllowed('@forge/tools', '@forge/core')).toBe(true);
    const tools = join(root, 'packages', 'tools');
    const file = join(tools, 'src', 'run', 'run-process.ts');
    expect(leavesPackage(file, '../../../core/src/index.js', tools, tools)).toBe(true);
    expect(leavesPackage(file, '../workspace.js', tools, tools)).toBe(false);
    expect(leavesPackage(file, '../../package.json', tools, tools)).toBe(false);
    expect(
      leavesPackage(join(root, 'scripts', 'bench.ts'), '../packages/core/src/index.js', join(root, 'scripts'), root),
    ).toBe(true);
  });
});
