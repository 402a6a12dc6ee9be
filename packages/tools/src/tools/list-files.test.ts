import { execFileSync } from 'node:child_process';
import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, makeTempDirectory, outputText, writeFiles } from '../temp-workspace.test-helpers.js';
import { createListFilesTool } from './list-files.js';

async function setUp(files: Record<string, string>) {
  const root = await makeTempDirectory();
  await writeFiles(root, files);
  return { root, tool: createListFilesTool({ root }) };
}

describe('list_files', () => {
  it('lists one directory level, sorted, directories marked with a slash', async () => {
    const { tool } = await setUp({ 'b.txt': '', 'a.txt': '', 'src/index.ts': '', 'Z.md': '' });
    const result = await call(tool, {});
    expect(outputText(result)).toBe('Z.md\na.txt\nb.txt\nsrc/');
    expect(result.metadata).toEqual({ path: '.', entries: 4, truncated: false });
  });

  it('lists recursively in tree order and never shows .git', async () => {
    const { tool } = await setUp({
      '.git/HEAD': 'ref',
      'src/b/c.ts': '',
      'src/a.ts': '',
      'src-extra.txt': '',
      'README.md': '',
    });
    expect(outputText(await call(tool, { recursive: true }))).toBe(
      ['README.md', 'src/', 'src/a.ts', 'src/b/', 'src/b/c.ts', 'src-extra.txt'].join('\n'),
    );
    expect(outputText(await call(tool, { path: 'src', recursive: true }))).toBe(
      ['src/a.ts', 'src/b/', 'src/b/c.ts'].join('\n'),
    );
  });

  it('honours the root and nested .gitignore files, negations included', async () => {
    const { tool } = await setUp({
      '.gitignore': 'node_modules/\n*.log\n',
      'node_modules/pkg/index.js': '',
      'debug.log': '',
      'app/.gitignore': 'generated/\n!keep.log\n',
      'app/generated/out.js': '',
      'app/keep.log': '',
      'app/other.log': '',
      'app/main.ts': '',
    });
    expect(outputText(await call(tool, { recursive: true }))).toBe(
      ['.gitignore', 'app/', 'app/.gitignore', 'app/keep.log', 'app/main.ts'].join('\n'),
    );
  });

  it('lists a directory the user names even when .gitignore excludes it, and says so', async () => {
    const { tool } = await setUp({ '.gitignore': 'dist/\n', 'dist/bundle.js': '' });
    const shown = outputText(await call(tool, { path: 'dist' }));
    expect(shown).toBe(
      'dist/bundle.js\n[list_files: "dist" is excluded by .gitignore; listed without .gitignore filtering]',
    );
  });

  it('stops at the entry cap with a truncation marker, shallow entries first', async () => {
    const { tool } = await setUp({ 'a/deep/x.txt': '', 'a/y.txt': '', 'b.txt': '', 'c.txt': '' });
    const result = await call(tool, { recursive: true, maxEntries: 3 });
    expect(outputText(result)).toBe(
      'a/\nb.txt\nc.txt\n[list_files: truncated after 3 entries; list a subdirectory, or raise maxEntries (up to 5000)]',
    );
    expect(result.metadata).toMatchObject({ truncated: true, entries: 3 });
  });

  it('marks symbolic links and does not follow them', async () => {
    const { root, tool } = await setUp({ 'real/file.txt': '' });
    const outside = await makeTempDirectory();
    await writeFiles(outside, { 'secret.txt': '' });
    await symlink(outside, path.join(root, 'escape'));
    expect(outputText(await call(tool, { recursive: true }))).toBe('escape@\nreal/\nreal/file.txt');
    expect(outputText(await call(tool, { path: 'escape' }))).toContain('outside the workspace');
  });

  it('explains files, missing directories, empty directories and escapes', async () => {
    const { tool } = await setUp({ 'a.txt': '', 'empty/.gitignore': '*\n' });
    expect(outputText(await call(tool, { path: 'a.txt' }))).toBe(
      '"a.txt" is a file, not a directory; use read_file to read it.',
    );
    expect(outputText(await call(tool, { path: 'missing' }))).toContain('"missing" does not exist');
    expect(outputText(await call(tool, { path: 'empty' }))).toBe('[list_files: "empty" is empty]');
    expect((await call(tool, { path: '..' })).output.type).toBe('error-text');
  });
});

describe('list_files on hostile names and .gitignore files', () => {
  it('shows a name holding a newline as one JSON string, so every line is one whole path', async () => {
    const { tool } = await setUp({ 'evil\nname.txt': '', 'plain.txt': '', '"quoted.txt': '' });
    const lines = outputText(await call(tool, {})).split('\n');
    expect(lines).toEqual(['"\\"quoted.txt"', '"evil\\nname.txt"', 'plain.txt']);
    expect(JSON.parse(lines[1] ?? '')).toBe('evil\nname.txt');
  });

  it('lists normally when .gitignore is a FIFO, with a note saying it was not used', async () => {
    const root = await makeTempDirectory();
    await writeFiles(root, { 'a.txt': '' });
    execFileSync('mkfifo', [path.join(root, '.gitignore')]);
    const shown = outputText(await call(createListFilesTool({ root }), {}));
    expect(shown).toBe(
      '.gitignore\na.txt\n[list_files: .gitignore was not used: .gitignore is a FIFO, not a regular file]',
    );
  });
});
