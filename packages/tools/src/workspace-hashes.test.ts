import { link, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sha256Hex } from '@forge/core';
import { describe, expect, it } from 'vitest';
import { makeTempDirectory } from './temp-workspace.test-helpers.js';
import { hashWorkspaceFile, workspaceArtifactHashes } from './workspace-hashes.js';

describe('workspaceArtifactHashes', () => {
  it('hashes files as they are on disk now, and reports missing or out-of-workspace files as unknown', async () => {
    const root = await makeTempDirectory('forge-hashes-');
    await writeFile(path.join(root, 'a.ts'), 'export const a = 1;\n');
    const hashes = await workspaceArtifactHashes(root)([
      'file:a.ts',
      'file:gone.ts',
      'file:../outside.ts',
      'command:pnpm test',
    ]);
    expect(hashes).toEqual(
      new Map([
        ['file:a.ts', sha256Hex('export const a = 1;\n')],
        ['file:gone.ts', null],
        ['file:../outside.ts', null],
      ]),
    );
  });
});

describe('hashWorkspaceFile', () => {
  it('tells a file that is gone from one that cannot be read as read_file would', async () => {
    const root = await makeTempDirectory('forge-hash-file-');
    await writeFile(path.join(root, 'a.ts'), 'one\n');
    await mkdir(path.join(root, 'src'));
    await link(path.join(root, 'a.ts'), path.join(root, 'linked.ts'));
    expect(await hashWorkspaceFile(root, 'a.ts')).toEqual({ status: 'unknown' });
    expect(await hashWorkspaceFile(root, 'gone.ts')).toEqual({ status: 'missing' });
    expect(await hashWorkspaceFile(root, 'src/gone/deeper.ts')).toEqual({ status: 'missing' });
    expect(await hashWorkspaceFile(root, 'src')).toEqual({ status: 'unknown' });
    expect(await hashWorkspaceFile(root, '../outside.ts')).toEqual({ status: 'unknown' });
    await writeFile(path.join(root, 'b.ts'), 'two\n');
    expect(await hashWorkspaceFile(root, 'b.ts')).toEqual({ status: 'current', hash: sha256Hex('two\n') });
  });
});
