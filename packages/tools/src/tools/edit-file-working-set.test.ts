import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sha256Hex } from '@forge/core';
import { describe, expect, it } from 'vitest';
import { ReadLedger } from '../read-ledger.js';
import { call, makeTempDirectory, outputText, writeFiles } from '../temp-workspace.test-helpers.js';
import { workspaceArtifactHashes } from '../workspace-hashes.js';
import { createEditFileTool } from './edit-file.js';
import { createReadFileTool } from './read-file.js';

const numbered = (count: number): string =>
  Array.from({ length: count }, (_, index) => `line ${index + 1}`).join('\n') + '\n';

async function setUp(files: Record<string, string>) {
  const root = await makeTempDirectory();
  await writeFiles(root, files);
  // A new process: nothing read yet; the working set of the view it sends is all it has seen.
  const ledger = new ReadLedger();
  return { root, ledger, edit: createEditFileTool({ root, ledger }), read: createReadFileTool({ root, ledger }) };
}

describe('edit_file and the working set', () => {
  it('edits a file the sent working set showed whole, without reading it again', async () => {
    const { root, ledger, edit } = await setUp({ 'src/math.js': 'export const add = (a, b) => a - b;\n' });
    const source = workspaceArtifactHashes(root, { ledger });
    const contents = await source.readFiles(['src/math.js']);
    const file = contents.get('src/math.js');
    expect(file).toEqual({
      kind: 'text',
      text: 'export const add = (a, b) => a - b;\n',
      sha256: sha256Hex('export const add = (a, b) => a - b;\n'),
    });
    source.workingSetSent([
      { path: 'src/math.js', sha256: sha256Hex('export const add = (a, b) => a - b;\n'), region: null },
    ]);
    const result = await call(edit, { path: 'src/math.js', mode: 'replace', old: 'a - b', new: 'a + b' });
    expect(result.output).toEqual({ type: 'text', value: 'Replaced 1 occurrence in "src/math.js".' });
    expect(await readFile(path.join(root, 'src/math.js'), 'utf8')).toBe('export const add = (a, b) => a + b;\n');
  });

  it('refuses when the file changed after the view showed it', async () => {
    const { root, ledger, edit } = await setUp({ 'a.txt': 'one\n' });
    ledger.acceptWorkingSet([{ path: 'a.txt', sha256: sha256Hex('one\n'), region: null }]);
    await writeFile(path.join(root, 'a.txt'), 'two\n');
    const result = await call(edit, { path: 'a.txt', mode: 'replace', old: 'two', new: 'three' });
    expect(outputText(result)).toContain('changed since you last read it');
  });

  it('accepts an edit inside the region shown and refuses one outside it or a rewrite', async () => {
    const { ledger, edit } = await setUp({ 'big.ts': numbered(100) });
    ledger.acceptWorkingSet([
      { path: 'big.ts', sha256: sha256Hex(numbered(100)), region: { startLine: 40, endLine: 60 } },
    ]);
    const outside = await call(edit, { path: 'big.ts', mode: 'replace', old: 'line 7\n', new: 'seven\n' });
    expect(outputText(outside)).toContain('not all inside lines 40-60');
    const rewrite = await call(edit, { path: 'big.ts', mode: 'rewrite', content: 'gone\n' });
    expect(outputText(rewrite)).toContain('showed only lines 40-60');
    const inside = await call(edit, { path: 'big.ts', mode: 'replace', old: 'line 50\n', new: 'fifty\n' });
    expect(inside.output.type).toBe('text');
    expect(inside.metadata).toMatchObject({ startLine: 50, endLine: 50 });
  });

  it('forgets what an earlier view showed once a later view shows something else', async () => {
    const { ledger, edit } = await setUp({ 'a.txt': 'one\n' });
    ledger.acceptWorkingSet([{ path: 'a.txt', sha256: sha256Hex('one\n'), region: null }]);
    ledger.acceptWorkingSet([]);
    const result = await call(edit, { path: 'a.txt', mode: 'replace', old: 'one', new: 'two' });
    expect(outputText(result)).toContain('has not been read in full');
  });

  it('reports where an edit wrote, and where a partial read looked, so a checkpoint can keep that region in hand', async () => {
    const { read, edit } = await setUp({ 'f.txt': numbered(30) });
    const partial = await call(read, { path: 'f.txt', startLine: 5, endLine: 9 });
    expect(partial.metadata).toMatchObject({ complete: false, startLine: 5, endLine: 9 });
    await call(read, { path: 'f.txt' });
    const all = await call(edit, { path: 'f.txt', mode: 'replace', old: '2\n', new: '2\nextra\n', all: true });
    // "line 2", "line 12", "line 22": from the first occurrence's line to the last one's, after the insertions.
    expect(all.metadata).toMatchObject({ startLine: 2, endLine: 25 });
  });
});

describe('reading files in hand', () => {
  it('gives text and hash, and says why there is none for a missing, binary or outside file', async () => {
    const root = await makeTempDirectory();
    await writeFiles(root, { 'a.txt': 'hello\n', 'bin.dat': new Uint8Array([1, 0, 2]) });
    const contents = await workspaceArtifactHashes(root).readFiles(['a.txt', 'gone.txt', 'bin.dat', '../outside.txt']);
    expect(contents.get('a.txt')).toEqual({ kind: 'text', text: 'hello\n', sha256: sha256Hex('hello\n') });
    expect(contents.get('gone.txt')).toEqual({ kind: 'missing' });
    expect(contents.get('bin.dat')).toEqual({ kind: 'unreadable', reason: 'it is a binary file' });
    expect(contents.get('../outside.txt')).toEqual({ kind: 'unreadable', reason: 'it is outside the workspace' });
  });
});
