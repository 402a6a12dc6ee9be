import { execFileSync } from 'node:child_process';
import { link, mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { sha256Hex } from '@forge/core';
import { describe, expect, it } from 'vitest';
import { ReadLedger } from '../read-ledger.js';
import { call, makeTempDirectory, outputText, writeFiles } from '../temp-workspace.test-helpers.js';
import { createReadFileTool, selectLines } from './read-file.js';

async function setUp(files: Record<string, string | Uint8Array>, readCapBytes?: number) {
  const root = await makeTempDirectory();
  await writeFiles(root, files);
  const ledger = new ReadLedger();
  return { root, ledger, tool: createReadFileTool({ root, ledger, readCapBytes }) };
}

describe('read_file', () => {
  it('returns the whole content with a host-computed hash and records the full read', async () => {
    const content = 'line one\nline two\n';
    const { ledger, tool } = await setUp({ 'src/a.txt': content });
    const result = await call(tool, { path: 'src/a.txt' });
    expect(result.output).toEqual({ type: 'text', value: content });
    expect(result.metadata).toEqual({
      path: 'src/a.txt',
      sha256: sha256Hex(content),
      bytes: Buffer.byteLength(content),
      complete: true,
    });
    expect(ledger.hashOf('src/a.txt')).toBe(sha256Hex(content));
  });

  it('reads a line range as a partial read that the ledger does not record', async () => {
    const content = 'a\nb\nc\nd\n';
    const { ledger, tool } = await setUp({ 'f.txt': content });
    const result = await call(tool, { path: 'f.txt', startLine: 2, endLine: 3 });
    expect(outputText(result)).toMatch(/^b\nc\n\[read_file: partial read \(a line range\): lines 2-3 of 4/);
    expect(outputText(result)).toContain('Continue with startLine=4');
    expect(result.metadata).toMatchObject({ complete: false, sha256: sha256Hex(content) });
    expect(ledger.hashOf('f.txt')).toBeUndefined();
  });

  it('cuts at the byte cap on a line boundary and says how to continue', async () => {
    const content = Array.from({ length: 100 }, (_, index) => `line ${index + 1}`).join('\n');
    const { ledger, tool } = await setUp({ 'big.txt': content }, 50);
    const result = await call(tool, { path: 'big.txt' });
    const shown = outputText(result);
    expect(shown.startsWith('line 1\nline 2\n')).toBe(true);
    expect(shown).toMatch(/partial read \(cut at the byte cap\): lines 1-\d+ of 100/);
    expect(result.metadata).toMatchObject({ complete: false, bytes: Buffer.byteLength(content) });
    expect(ledger.size).toBe(0);
  });

  it('refuses binary files', async () => {
    const { tool } = await setUp({ 'image.png': new Uint8Array([0x89, 0x50, 0x00, 0x01]) });
    const result = await call(tool, { path: 'image.png' });
    expect(result.output).toEqual({
      type: 'error-text',
      value: '"image.png" is a binary file (it contains NUL bytes); read_file shows text files only.',
    });
  });

  it('explains missing files, directories and ranges past the end', async () => {
    const { root, tool } = await setUp({ 'f.txt': 'one\n' });
    await mkdir(path.join(root, 'dir'));
    expect(outputText(await call(tool, { path: 'nope.txt' }))).toContain('"nope.txt" does not exist in the workspace');
    expect(outputText(await call(tool, { path: 'dir' }))).toContain('"dir" is a directory, not a regular file');
    expect(outputText(await call(tool, { path: 'f.txt', startLine: 5 }))).toBe(
      '"f.txt" has 1 lines; startLine 5 is past its end.',
    );
  });

  it('refuses paths outside the workspace, including through symlinks', async () => {
    const { root, tool } = await setUp({});
    const outside = await makeTempDirectory();
    await writeFiles(outside, { 'secret.txt': 'secret' });
    await symlink(path.join(outside, 'secret.txt'), path.join(root, 'link.txt'));
    const escaped = await call(tool, { path: '../secret.txt' });
    expect(escaped.output.type).toBe('error-text');
    expect(outputText(escaped)).toContain('is outside the workspace');
    const linked = await call(tool, { path: 'link.txt' });
    expect(linked.output.type).toBe('error-text');
    expect(outputText(linked)).not.toContain('secret\n');
  });

  it('reports invalid input as error text the model can act on', async () => {
    const { tool } = await setUp({});
    const result = await call(tool, { path: 'a', startLine: 3, endLine: 1 });
    expect(result.output).toEqual({
      type: 'error-text',
      value:
        'Invalid input for read_file: endLine: endLine must not be smaller than startLine. Fix the arguments and call it again.',
    });
    expect((await call(tool, 'a.txt')).output.type).toBe('error-text');
  });

  it('reports an empty file as a complete read', async () => {
    const { ledger, tool } = await setUp({ 'empty.txt': '' });
    const result = await call(tool, { path: 'empty.txt' });
    expect(outputText(result)).toBe('[read_file: "empty.txt" is empty]');
    expect(ledger.hashOf('empty.txt')).toBe(sha256Hex(''));
  });
});

describe('selectLines', () => {
  it('keeps a too-long first line cut at a character boundary', () => {
    const view = selectLines('ééééé\nnext\n', undefined, undefined, 5);
    expect(view).toMatchObject({ kind: 'lines', content: 'éé', cut: true, complete: false, lastLine: 1 });
  });

  it('counts a file without a final newline', () => {
    expect(selectLines('a\nb', undefined, undefined, 100)).toMatchObject({
      totalLines: 2,
      complete: true,
      content: 'a\nb',
    });
  });
});

describe('read_file on hostile workspaces', () => {
  it('refuses a hard link to a file outside the workspace, saying why', async () => {
    const { root, tool } = await setUp({});
    const outside = await makeTempDirectory();
    await writeFiles(outside, { credentials: 'outside-secret\n' });
    await link(path.join(outside, 'credentials'), path.join(root, 'innocent.txt'));
    const result = await call(tool, { path: 'innocent.txt' });
    expect(result.output.type).toBe('error-text');
    expect(outputText(result)).not.toContain('outside-secret');
    expect(outputText(result)).toBe(
      '"innocent.txt" has 2 hard links, and another of them may be a file outside the workspace, so read_file does not open it. Ask the user for its content if you need it.',
    );
  });

  it('refuses a FIFO at once', async () => {
    const { root, tool } = await setUp({});
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    expect(outputText(await call(tool, { path: 'pipe' }))).toBe(
      '"pipe" is a FIFO, not a regular file; read_file works on regular files only (use list_files to see what a directory contains).',
    );
  });
});

describe('read_file summary', () => {
  it('says how much of the file was read', async () => {
    const root = await makeTempDirectory();
    await writeFiles(root, { 'src/a.ts': 'one\ntwo\nthree\n' });
    const tool = createReadFileTool({ root, ledger: new ReadLedger() });
    expect((await call(tool, { path: 'src/a.ts' })).summary).toBe('read src/a.ts (3 lines)');
    expect((await call(tool, { path: 'src/a.ts', startLine: 2, endLine: 3 })).summary).toBe(
      'read src/a.ts (lines 2–3 of 3)',
    );
  });
});
