import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sha256Hex } from '@forge/core';
import { describe, expect, it } from 'vitest';
import { makeTempDirectory } from './temp-workspace.test-helpers.js';
import { workspaceArtifactHashes } from './workspace-hashes.js';

describe('workspaceArtifactHashes', () => {
  it('hashes files as they are on disk now, and reports missing or out-of-workspace files as unknown', async () => {
    const root = await makeTempDirectory('forge-hashes-');
    await writeFile(path.join(root, 'a.ts'), 'export const a = 1;\n');
    const hashes = await workspaceArtifactHashes(root)(['file:a.ts', 'file:gone.ts', 'file:../outside.ts', 'command:pnpm test']);
    expect(hashes).toEqual(
      new Map([
        ['file:a.ts', sha256Hex('export const a = 1;\n')],
        ['file:gone.ts', null],
        ['file:../outside.ts', null],
      ]),
    );
  });
});
