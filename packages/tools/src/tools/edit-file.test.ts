import { execFileSync, spawnSync } from 'node:child_process';
import { chmod, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sha256Hex } from '@forge/core';
import { describe, expect, it } from 'vitest';
import { ReadLedger } from '../read-ledger.js';
import { call, makeTempDirectory, outputText, writeFiles } from '../temp-workspace.test-helpers.js';
import { createEditFileTool } from './edit-file.js';
import { createReadFileTool } from './read-file.js';

async function setUp(files: Record<string, string | Uint8Array> = {}) {
  const root = await makeTempDirectory();
  await writeFiles(root, files);
  const ledger = new ReadLedger();
  return { root, ledger, read: createReadFileTool({ root, ledger }), edit: createEditFileTool({ root, ledger }) };
}

const contentOf = (root: string, relative: string) => readFile(path.join(root, relative), 'utf8');

describe('edit_file create', () => {
  it('creates a new file with its directories and lets the model edit it next without a read', async () => {
    const { root, edit, ledger } = await setUp();
    const created = await call(edit, { path: 'src/new/a.ts', mode: 'create', content: 'export const a = 1;\n' });
    expect(created.output).toEqual({ type: 'text', value: 'Created "src/new/a.ts" (20 B).' });
    expect(created.metadata).toEqual({
      path: 'src/new/a.ts',
      sha256Before: null,
      sha256After: sha256Hex('export const a = 1;\n'),
    });
    expect(await contentOf(root, 'src/new/a.ts')).toBe('export const a = 1;\n');
    expect(ledger.hashOf('src/new/a.ts')).toBe(sha256Hex('export const a = 1;\n'));
    const replaced = await call(edit, { path: 'src/new/a.ts', mode: 'replace', old: '1', new: '2' });
    expect(replaced.output.type).toBe('text');
    expect(await contentOf(root, 'src/new/a.ts')).toBe('export const a = 2;\n');
  });

  it('refuses to create over an existing file', async () => {
    const { root, edit } = await setUp({ 'a.txt': 'keep me' });
    const result = await call(edit, { path: 'a.txt', mode: 'create', content: 'overwrite' });
    expect(result.output).toEqual({
      type: 'error-text',
      value: '"a.txt" already exists; read it with read_file, then change it with mode "replace" or "rewrite".',
    });
    expect(await contentOf(root, 'a.txt')).toBe('keep me');
  });

  it('refuses to create through a directory symlink that leads outside', async () => {
    const { root, edit } = await setUp();
    const outside = await makeTempDirectory();
    await symlink(outside, path.join(root, 'escape'));
    const result = await call(edit, { path: 'escape/planted.txt', mode: 'create', content: 'x' });
    expect(result.output.type).toBe('error-text');
    expect(outputText(result)).toContain('outside the workspace');
    expect(await readdir(outside)).toEqual([]);
  });

  it('refuses absolute paths and .. escapes', async () => {
    const { edit } = await setUp();
    const outside = await makeTempDirectory();
    expect(outputText(await call(edit, { path: path.join(outside, 'x.txt'), mode: 'create', content: 'x' }))).toContain(
      'is absolute',
    );
    expect(outputText(await call(edit, { path: '../x.txt', mode: 'create', content: 'x' }))).toContain(
      'is outside the workspace',
    );
  });

  it('never changes files inside .git', async () => {
    const { root, edit } = await setUp({ '.git/config': '[core]\n' });
    const result = await call(edit, { path: '.git/hooks/pre-commit', mode: 'create', content: '#!/bin/sh\n' });
    expect(outputText(result)).toContain('edit_file does not change files inside .git');
    await expect(stat(path.join(root, '.git/hooks/pre-commit'))).rejects.toThrow();
  });
});

describe('edit_file replace and rewrite', () => {
  it('refuses to edit a file that was never read', async () => {
    const { root, edit } = await setUp({ 'a.txt': 'hello\n' });
    const result = await call(edit, { path: 'a.txt', mode: 'replace', old: 'hello', new: 'bye' });
    expect(result.output).toEqual({
      type: 'error-text',
      value:
        'edit_file refused: "a.txt" has not been read in full in this session. Call read_file on it without a line range, then retry the edit.',
    });
    expect(await contentOf(root, 'a.txt')).toBe('hello\n');
  });

  it('does not count a partial read as having seen the file', async () => {
    const { root, read, edit } = await setUp({ 'a.txt': 'one\ntwo\nthree\n' });
    await call(read, { path: 'a.txt', startLine: 1, endLine: 2 });
    const result = await call(edit, { path: 'a.txt', mode: 'rewrite', content: 'gone\n' });
    expect(outputText(result)).toContain('has not been read in full');
    expect(await contentOf(root, 'a.txt')).toBe('one\ntwo\nthree\n');
  });

  it('refuses a stale edit when the file changed after the read', async () => {
    const { root, read, edit } = await setUp({ 'a.txt': 'version 1\n' });
    await call(read, { path: 'a.txt' });
    await writeFile(path.join(root, 'a.txt'), 'version 2 from someone else\n');
    const result = await call(edit, { path: 'a.txt', mode: 'replace', old: 'version', new: 'v' });
    expect(result.output).toEqual({
      type: 'error-text',
      value:
        'edit_file refused: "a.txt" changed since you last read it. Call read_file again to see its current content, then retry the edit against that.',
    });
    expect(await contentOf(root, 'a.txt')).toBe('version 2 from someone else\n');
    await call(read, { path: 'a.txt' });
    expect((await call(edit, { path: 'a.txt', mode: 'replace', old: 'version', new: 'v' })).output.type).toBe('text');
  });

  it('replaces exactly one occurrence and reports hashes before and after', async () => {
    const before = 'const price = 10;\nconst tax = 2;\n';
    const { root, read, edit, ledger } = await setUp({ 'a.ts': before });
    await call(read, { path: 'a.ts' });
    const result = await call(edit, { path: 'a.ts', mode: 'replace', old: 'price = 10', new: 'price = $&11' });
    const after = 'const price = $&11;\nconst tax = 2;\n';
    expect(result.output).toEqual({ type: 'text', value: 'Replaced 1 occurrence in "a.ts".' });
    expect(result.metadata).toEqual({
      path: 'a.ts',
      sha256Before: sha256Hex(before),
      sha256After: sha256Hex(after),
      startLine: 1,
      endLine: 1,
    });
    expect(await contentOf(root, 'a.ts')).toBe(after);
    expect(ledger.hashOf('a.ts')).toBe(sha256Hex(after));
  });

  it('refuses a replacement whose text is missing or occurs more than once, unless all is set', async () => {
    const { root, read, edit } = await setUp({ 'a.txt': 'x = 1\nx = 1\n' });
    await call(read, { path: 'a.txt' });
    const missing = await call(edit, { path: 'a.txt', mode: 'replace', old: 'y = 1', new: 'y = 2' });
    expect(outputText(missing)).toBe(
      'The text to replace was not found in "a.txt"; nothing changed. Copy "old" exactly from the latest read_file output, whitespace included.',
    );
    const ambiguous = await call(edit, { path: 'a.txt', mode: 'replace', old: 'x = 1', new: 'x = 2' });
    expect(outputText(ambiguous)).toBe(
      'The text to replace occurs 2 times in "a.txt"; nothing changed. Add surrounding lines to "old" so it occurs once, or set all: true to change every occurrence.',
    );
    expect(await contentOf(root, 'a.txt')).toBe('x = 1\nx = 1\n');
    const all = await call(edit, { path: 'a.txt', mode: 'replace', old: 'x = 1', new: 'x = 2', all: true });
    expect(outputText(all)).toBe('Replaced 2 occurrences in "a.txt".');
    expect(await contentOf(root, 'a.txt')).toBe('x = 2\nx = 2\n');
  });

  it('rewrites atomically, keeps the file mode and leaves no temporary files', async () => {
    const { root, read, edit } = await setUp({ 'bin/run.sh': '#!/bin/sh\necho 1\n' });
    await chmod(path.join(root, 'bin/run.sh'), 0o750);
    await call(read, { path: 'bin/run.sh' });
    const result = await call(edit, { path: 'bin/run.sh', mode: 'rewrite', content: '#!/bin/sh\necho 2\n' });
    expect(outputText(result)).toBe('Rewrote "bin/run.sh" (17 B).');
    expect(await contentOf(root, 'bin/run.sh')).toBe('#!/bin/sh\necho 2\n');
    expect((await stat(path.join(root, 'bin/run.sh'))).mode & 0o777).toBe(0o750);
    expect(await readdir(path.join(root, 'bin'))).toEqual(['run.sh']);
  });

  it('edits the target of an inside symlink, keeping the link', async () => {
    const { root, read, edit } = await setUp({ 'real.txt': 'a\n' });
    await symlink(path.join(root, 'real.txt'), path.join(root, 'alias.txt'));
    await call(read, { path: 'alias.txt' });
    const result = await call(edit, { path: 'alias.txt', mode: 'rewrite', content: 'b\n' });
    expect(result.metadata).toMatchObject({ path: 'real.txt' });
    expect(await contentOf(root, 'real.txt')).toBe('b\n');
    expect((await stat(path.join(root, 'alias.txt'))).isFile()).toBe(true);
  });

  it('explains a missing file, a binary file and incomplete input', async () => {
    const { root, edit, ledger } = await setUp({ 'blob.bin': new Uint8Array([1, 0, 2]) });
    await mkdir(path.join(root, 'dir'));
    ledger.record('blob.bin', 'irrelevant');
    expect(outputText(await call(edit, { path: 'nope.txt', mode: 'rewrite', content: 'x' }))).toBe(
      '"nope.txt" does not exist; use mode "create" to make a new file.',
    );
    expect(outputText(await call(edit, { path: 'blob.bin', mode: 'rewrite', content: 'x' }))).toContain(
      'is a binary file',
    );
    expect(outputText(await call(edit, { path: 'dir', mode: 'rewrite', content: 'x' }))).toContain(
      'is a directory, not a regular file',
    );
    expect(outputText(await call(edit, { path: 'a.txt', mode: 'replace', old: 'x' }))).toBe(
      'Invalid input for edit_file: new: mode "replace" needs "new". Fix the arguments and call it again.',
    );
  });
});

describe('edit_file after a crash and on a full disk', () => {
  /** The pid of a process that has exited. */
  function deadPid(): number {
    const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    return Number(child.stdout);
  }

  it("removes the temporary a killed writer left beside the file, and keeps a live writer's", async () => {
    const { root, read, edit } = await setUp({ 'a.txt': 'one\n' });
    const abandoned = `.a.txt.forge-${deadPid()}-0123456789ab.tmp`;
    const live = `.a.txt.forge-${process.ppid}-ba9876543210.tmp`;
    await writeFile(path.join(root, abandoned), 'half of a write');
    await writeFile(path.join(root, live), 'a write still going on');
    await call(read, { path: 'a.txt' });
    expect((await call(edit, { path: 'a.txt', mode: 'rewrite', content: 'two\n' })).output.type).toBe('text');
    expect((await readdir(root)).sort()).toEqual([live, 'a.txt'].sort());
  });

  it.skipIf(process.getuid?.() !== 0)(
    'names the file and leaves it whole when the file system is full (a 64 KiB tmpfs)',
    async () => {
      const mountPoint = await makeTempDirectory();
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mountPoint]);
      try {
        const root = path.join(mountPoint, 'ws');
        await mkdir(root);
        await writeFile(path.join(root, 'notes.txt'), 'keep\n');
        const ledger = new ReadLedger();
        await call(createReadFileTool({ root, ledger }), { path: 'notes.txt' });
        await writeFile(path.join(mountPoint, 'filler'), Buffer.alloc(60 * 1024)).catch(() => undefined);
        const result = await call(createEditFileTool({ root, ledger }), {
          path: 'notes.txt',
          mode: 'rewrite',
          content: 'x'.repeat(32 * 1024),
        });
        expect(result.output).toEqual({
          type: 'error-text',
          value:
            'Could not write "notes.txt": the file system is full (ENOSPC). The file was left as it was; tell the user, who must make room first.',
        });
        expect(await readFile(path.join(root, 'notes.txt'), 'utf8')).toBe('keep\n');
        expect(await readdir(root)).toEqual(['notes.txt']);
      } finally {
        execFileSync('umount', [mountPoint]);
      }
    },
  );

  it.skipIf(process.getuid?.() !== 0)(
    'says a read-only file system needs the user, not more room, and leaves the file whole',
    async () => {
      const mountPoint = await makeTempDirectory();
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mountPoint]);
      try {
        await writeFile(path.join(mountPoint, 'notes.txt'), 'keep\n');
        const ledger = new ReadLedger();
        await call(createReadFileTool({ root: mountPoint, ledger }), { path: 'notes.txt' });
        execFileSync('mount', ['-o', 'remount,ro', mountPoint]);
        const result = await call(createEditFileTool({ root: mountPoint, ledger }), {
          path: 'notes.txt',
          mode: 'rewrite',
          content: 'changed\n',
        });
        expect(result.output).toEqual({
          type: 'error-text',
          value:
            'Could not write "notes.txt": the file system is read-only (EROFS). The file was left as it was; tell the user: nothing can be written there until the file system is writable again.',
        });
        expect(await readFile(path.join(mountPoint, 'notes.txt'), 'utf8')).toBe('keep\n');
      } finally {
        execFileSync('umount', [mountPoint]);
      }
    },
  );
});

describe('edit_file check (before approval)', () => {
  const check = (tool: ReturnType<typeof createEditFileTool>, input: Record<string, unknown>) =>
    tool.check?.(input as never, { toolCallId: 'call_test', signal: new AbortController().signal });

  it('refuses, without changing anything, every edit that execute would refuse', async () => {
    const { root, read, edit } = await setUp({ 'a.txt': 'x = 1\nx = 1\n', 'b.txt': 'b\n' });
    await call(read, { path: 'a.txt' });
    expect(await check(edit, { path: 'a.txt', mode: 'replace', old: 'x = 1', new: 'x = 2' })).toMatch(
      /^The text to replace occurs 2 times in "a.txt"; nothing changed\./,
    );
    expect(await check(edit, { path: 'a.txt', mode: 'replace', old: 'y', new: 'z' })).toMatch(
      /^The text to replace was not found in "a.txt"/,
    );
    expect(await check(edit, { path: 'b.txt', mode: 'rewrite', content: 'c\n' })).toMatch(
      /^edit_file refused: "b.txt" has not been read in full in this session\./,
    );
    expect(await check(edit, { path: 'a.txt', mode: 'create', content: 'c\n' })).toMatch(/^"a.txt" already exists/);
    expect(await check(edit, { path: 'a.txt', mode: 'replace', old: 'x' })).toMatch(
      /^Invalid input for edit_file: new: mode "replace" needs "new"/,
    );
    expect(await contentOf(root, 'a.txt')).toBe('x = 1\nx = 1\n');
  });

  it('lets an edit that will apply go on to approval, and writes nothing itself', async () => {
    const { root, read, edit } = await setUp({ 'a.txt': 'x = 1\ny = 2\n' });
    await call(read, { path: 'a.txt' });
    expect(await check(edit, { path: 'a.txt', mode: 'replace', old: 'x = 1', new: 'x = 3' })).toBeUndefined();
    expect(await check(edit, { path: 'new/c.txt', mode: 'create', content: 'c\n' })).toBeUndefined();
    expect(await contentOf(root, 'a.txt')).toBe('x = 1\ny = 2\n');
    await expect(readdir(root)).resolves.toEqual(['a.txt']);
  });

  it('gives each applied edit a one-line summary with the lines added and removed', async () => {
    const { read, edit } = await setUp({ 'a.txt': 'one\ntwo\nthree\n' });
    await call(read, { path: 'a.txt' });
    expect((await call(edit, { path: 'a.txt', mode: 'replace', old: 'two\n', new: '2\n2b\n2c\n' })).summary).toBe(
      'edited a.txt (+3 −1)',
    );
    expect((await call(edit, { path: 'n.txt', mode: 'create', content: 'a\nb\n' })).summary).toBe(
      'created n.txt (+2 −0)',
    );
  });
});
