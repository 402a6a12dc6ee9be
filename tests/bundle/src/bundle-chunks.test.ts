import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { commandTable } from '@forge/cli/command-table';
import { sessionIdOf, useBundle, userSetup, type UserSetup } from './support/bundle.js';

/*
 * Every part of the bundle loads and runs in Node as shipped. An ES module bundle cannot call
 * `require`: CommonJS code esbuild bundled that requires a Node built-in fails only when its
 * chunk runs ("Dynamic require of … is not supported"), so each chunk is scanned and imported,
 * and each command is run once through the built binary.
 */

const fixture = useBundle('bundle-chunks');
const codexFixtures = path.join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  'packages',
  'codex',
  'src',
  'rollout',
  'fixtures',
);

function chunks(): string[] {
  const { dist } = fixture.bundle();
  return readdirSync(dist)
    .filter((name) => name.endsWith('.js'))
    .map((name) => path.join(dist, name));
}

describe('the chunks of the bundle', () => {
  it('contain no require that an ES module cannot perform', () => {
    const found = chunks().flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/(?<!function )\b__require(?:\.\w+)?\([^)]*\)/g)].map(
        (match) => `${path.basename(file)}: ${match[0]}`,
      ),
    );
    expect(found).toEqual([]);
  });

  it('each load in Node without an error', () => {
    const files = chunks();
    expect(files.length).toBeGreaterThan(10);
    const script = `for (const file of ${JSON.stringify(files.map((file) => pathToFileURL(file).href))}) await import(file);`;
    expect(() =>
      execFileSync(process.execPath, ['--input-type=module', '-e', script], { stdio: 'pipe' }),
    ).not.toThrow();
  });
});

/** One invocation per command of the table, what it must exit with, and a line of what it must print. */
interface Invocation {
  readonly args: readonly string[];
  readonly code: number;
  readonly prints: RegExp;
}

function invocations(sessionId: string, user: UserSetup): Record<string, Invocation> {
  return {
    'run <prompt...>': {
      args: ['run', '--model', 'scripted:demo', 'Summarise the workspace'],
      code: 0,
      prints: /README\.md has 1 line/,
    },
    'sessions list': { args: ['sessions', 'list'], code: 0, prints: new RegExp(sessionId) },
    'sessions show [id]': { args: ['sessions', 'show', sessionId], code: 0, prints: /Summarise the workspace/ },
    compact: { args: ['compact', '--last', '--dry-run'], code: 0, prints: /Compaction preview/ },
    'checkpoint show': { args: ['checkpoint', 'show', '--last'], code: 0, prints: /has no checkpoint yet/ },
    'import codex <rollout>': {
      args: ['import', 'codex', path.join(codexFixtures, 'legacy-0.46.jsonl')],
      code: 0,
      prints: /\S/,
    },
    context: { args: ['context'], code: 0, prints: /Tool schemas/ },
    'models list': { args: ['models', 'list'], code: 0, prints: /openai:gpt-5 / },
    'models calibration reset <model>': {
      args: ['models', 'calibration', 'reset', 'openai:gpt-5'],
      code: 0,
      prints: /no usage is recorded for openai:gpt-5/,
    },
    'config show': { args: ['config', 'show'], code: 0, prints: /Configuration files/ },
    'config validate [file]': {
      args: ['config', 'validate', path.join(user.forgeHome, 'config.json')],
      code: 0,
      prints: /valid/,
    },
    gc: { args: ['gc', '--dry-run'], code: 0, prints: /Nothing to prune|would remove/ },
    'inspect [target]': { args: ['inspect', '--last'], code: 0, prints: /status\s+completed/ },
    'mcp login <server>': { args: ['mcp', 'login', 'docs'], code: 2, prints: /no MCP server is named "docs"/ },
    'mcp logout <server>': { args: ['mcp', 'logout', 'docs'], code: 2, prints: /no MCP server is named "docs"/ },
    eval: { args: ['eval', '--suite', 'smoke', '--mode', 'off'], code: 0, prints: /gates passed/ },
  };
}

describe('every command of the bundle', () => {
  it('runs its implementation as shipped', async () => {
    const user = await userSetup(fixture, 'commands');
    await writeFile(path.join(user.workspace, 'README.md'), '# Bundle\n');
    await user.writeConfig({});
    const first = await user.forge(['run', '--model', 'scripted:demo', 'Summarise the workspace']);
    expect(first.code).toBe(0);
    const table = invocations(sessionIdOf(first.stderr), user);
    expect(Object.keys(table).sort()).toEqual(commandTable.commands.map((entry) => entry.usage).sort());

    for (const [usage, invocation] of Object.entries(table)) {
      const outcome = await user.forge(invocation.args);
      const shown = `forge ${invocation.args.join(' ')} (${usage}) exited ${outcome.code}:\n${outcome.stdout}\n${outcome.stderr}`;
      expect(outcome.stderr, shown).not.toMatch(/Dynamic require|\n\s+at /);
      expect(outcome.code, shown).toBe(invocation.code);
      expect(`${outcome.stdout}${outcome.stderr}`, shown).toMatch(invocation.prints);
    }

    const repl = await user.forge([], {});
    expect(repl.code).toBe(0);
    expect(repl.stdout).toContain('Type a request');
  }, 120_000);
});
