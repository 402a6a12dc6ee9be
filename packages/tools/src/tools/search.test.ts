import { link, symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, makeTempDirectory, outputText, writeFiles } from '../temp-workspace.test-helpers.js';
import { createSearchTool } from './search.js';

async function setUp(files: Record<string, string | Uint8Array>) {
  const root = await makeTempDirectory();
  await writeFiles(root, files);
  return { root, tool: createSearchTool({ root }) };
}

describe('search', () => {
  it('finds literal text and prints path:line: text in sorted file order', async () => {
    const { tool } = await setUp({
      'src/b.ts': 'const total = a + b;\n',
      'src/a.ts': 'let x;\n// total (a + b)\nconst total = 1;\n',
      'README.md': 'The total is shown.\n',
    });
    const result = await call(tool, { pattern: 'total' });
    expect(outputText(result)).toBe(
      [
        'README.md:1: The total is shown.',
        'src/a.ts:2: // total (a + b)',
        'src/a.ts:3: const total = 1;',
        'src/b.ts:1: const total = a + b;',
      ].join('\n'),
    );
    expect(result.metadata).toEqual({ path: '.', matches: 4, filesSearched: 3, truncated: false });
    expect(outputText(await call(tool, { pattern: '(a + b)' }))).toBe('src/a.ts:2: // total (a + b)');
  });

  it('matches regular expressions and case-insensitively on request', async () => {
    const { tool } = await setUp({ 'a.txt': 'Alpha 1\nbeta 22\nALPHA 333\n' });
    expect(outputText(await call(tool, { pattern: '\\d{2,}', regex: true }))).toBe(
      'a.txt:2: beta 22\na.txt:3: ALPHA 333',
    );
    expect(outputText(await call(tool, { pattern: 'alpha', caseSensitive: false }))).toBe(
      'a.txt:1: Alpha 1\na.txt:3: ALPHA 333',
    );
  });

  it('reports an invalid regular expression as error text', async () => {
    const { tool } = await setUp({});
    const result = await call(tool, { pattern: '(unclosed', regex: true });
    expect(result.output.type).toBe('error-text');
    expect(outputText(result)).toContain('The pattern is not a valid regular expression');
  });

  it('honours .gitignore files at every level and skips .git and binary files', async () => {
    const { tool } = await setUp({
      '.gitignore': 'build/\n',
      '.git/config': 'needle\n',
      'build/out.js': 'needle\n',
      'pkg/.gitignore': '*.gen.ts\n',
      'pkg/a.gen.ts': 'needle\n',
      'pkg/a.ts': 'needle\n',
      'image.bin': new Uint8Array([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0x00]),
    });
    expect(outputText(await call(tool, { pattern: 'needle' }))).toBe('pkg/a.ts:1: needle');
    expect(outputText(await call(tool, { pattern: 'needle', path: 'build' }))).toBe('build/out.js:1: needle');
  });

  it('stops at the match cap with a truncation marker', async () => {
    const { tool } = await setUp({ 'a.txt': 'hit\nhit\nhit\n', 'b.txt': 'hit\n' });
    const result = await call(tool, { pattern: 'hit', maxMatches: 2 });
    expect(outputText(result)).toBe(
      'a.txt:1: hit\na.txt:2: hit\n[search: stopped after 2 matches; narrow the pattern or the path, or raise maxMatches (up to 2000)]',
    );
    expect(result.metadata).toMatchObject({ truncated: true, matches: 2 });
  });

  it('searches a single file, says when nothing matched, and refuses escapes', async () => {
    const { root, tool } = await setUp({ 'a.txt': 'one\n', 'b.txt': 'one\n' });
    expect(outputText(await call(tool, { pattern: 'one', path: 'b.txt' }))).toBe('b.txt:1: one');
    expect(outputText(await call(tool, { pattern: 'zebra' }))).toBe(
      '[search: no matches for "zebra" in 2 files under "."]',
    );
    const outside = await makeTempDirectory();
    await writeFiles(outside, { 'secret.txt': 'one\n' });
    await symlink(outside, path.join(root, 'escape'));
    expect(outputText(await call(tool, { pattern: 'one', path: 'escape' }))).toContain('outside the workspace');
    expect(outputText(await call(tool, { pattern: 'one' }))).toBe('a.txt:1: one\nb.txt:1: one');
  });
});

/** A line on which `(a+)+$` backtracks exponentially: seconds at 27 characters, the age of the universe at 40. */
const catastrophicLine = `${'a'.repeat(27)}b`;

/** Counts timer ticks while `work` runs: a blocked main thread gets none. */
async function ticksDuring<T>(work: Promise<T>): Promise<{ readonly value: T; readonly ticks: number }> {
  let ticks = 0;
  const timer = setInterval(() => (ticks += 1), 10);
  try {
    return { value: await work, ticks };
  } finally {
    clearInterval(timer);
  }
}

describe('search with a costly regular expression', () => {
  it('stops at the time bound, keeps the matches found so far, says why, and never blocks the main thread', async () => {
    const root = await makeTempDirectory();
    await writeFiles(root, { 'a.txt': 'aaa\n', 'b.txt': `${catastrophicLine}\n`, 'c.txt': 'aaaa\n' });
    const tool = createSearchTool({ root, regexTimeLimitMs: 300 });
    const { value: result, ticks } = await ticksDuring(call(tool, { pattern: '(a+)+$', regex: true }));
    expect(ticks).toBeGreaterThan(5);
    expect(outputText(result)).toBe(
      'a.txt:1: aaa\n' +
        '[search: stopped after 300 ms of matching, the time bound of a regular-expression search: 1 of 3 files were searched. ' +
        'The pattern is probably too costly (nested repetition such as (a+)+ can take exponential time on one line); simplify it, search for literal text, or narrow the path]',
    );
    expect(result.metadata).toMatchObject({ matches: 1, filesSearched: 1, timedOut: true });
    // The next search starts a new worker and runs normally.
    expect(outputText(await call(tool, { pattern: '^a{4}$', regex: true }))).toBe('c.txt:1: aaaa');
  });

  it('is cancelled while the pattern runs', async () => {
    const root = await makeTempDirectory();
    await writeFiles(root, { 'b.txt': `${catastrophicLine}\n` });
    const tool = createSearchTool({ root, regexTimeLimitMs: 60_000 });
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(new Error('cancelled by the test')), 300);
    await expect(call(tool, { pattern: '(a+)+$', regex: true }, controller.signal)).rejects.toThrow(
      'cancelled by the test',
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("keeps JavaScript's regular-expression syntax: lookbehind, backreferences, named groups", async () => {
    const { tool } = await setUp({ 'a.txt': 'price: $10\nfoofoo\nbar\nkey=value\n' });
    expect(outputText(await call(tool, { pattern: '(?<=\\$)\\d+', regex: true }))).toBe('a.txt:1: price: $10');
    expect(outputText(await call(tool, { pattern: '^(\\w+)\\1$', regex: true }))).toBe('a.txt:2: foofoo');
    expect(outputText(await call(tool, { pattern: '^(?<name>\\w+)=\\k<name>?value$', regex: true }))).toBe(
      'a.txt:4: key=value',
    );
    expect(outputText(await call(tool, { pattern: 'BAR', regex: true, caseSensitive: false }))).toBe('a.txt:3: bar');
  });
});

describe('search on hostile workspaces', () => {
  it('does not read a hard link to a file outside the workspace, and says what it skipped', async () => {
    const { root, tool } = await setUp({ 'a.txt': 'token inside\n' });
    const outside = await makeTempDirectory();
    await writeFiles(outside, { credentials: 'token outside-secret\n' });
    await link(path.join(outside, 'credentials'), path.join(root, 'linked.txt'));
    const shown = outputText(await call(tool, { pattern: 'token' }));
    expect(shown).not.toContain('outside-secret');
    expect(shown).toBe(
      'a.txt:1: token inside\n[search: skipped 1 files with more than one hard link: another link may be outside the workspace]',
    );
    expect(outputText(await call(tool, { pattern: 'token', path: 'linked.txt' }))).not.toContain('outside-secret');
  });

  it('names a matching file whose name holds a newline as a JSON string', async () => {
    const { tool } = await setUp({ 'two\nlines.txt': 'needle\n' });
    expect(outputText(await call(tool, { pattern: 'needle' }))).toBe('"two\\nlines.txt":1: needle');
  });

  it('searches with a 10 MB single-line .gitignore and answers with a short note', async () => {
    const { tool } = await setUp({ '.gitignore': `${'x'.repeat(10 * 1024 * 1024)}\n`, 'a.txt': 'needle\n' });
    const shown = outputText(await call(tool, { pattern: 'needle' }));
    expect(shown).toBe(
      [
        'a.txt:1: needle',
        '[search: skipped 1 files larger than 2 MiB]',
        '[search: .gitignore was not used: .gitignore is 10.0 MiB, more than the 1.0 MiB Forge reads of it]',
      ].join('\n'),
    );
  }, 60_000);
});
