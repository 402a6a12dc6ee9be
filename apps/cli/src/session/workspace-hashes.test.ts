import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sha256Hex } from '@forge/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { temporaryDirectory } from '../test-support/cli-harness.js';
import { workspaceArtifactHashes } from './workspace-hashes.js';

let workspace: Awaited<ReturnType<typeof temporaryDirectory>>;

beforeEach(async () => {
  workspace = await temporaryDirectory('forge-hashes-');
  await writeFile(path.join(workspace.path, 'a.ts'), 'export const a = 1;\n');
});

afterEach(async () => {
  await workspace.remove();
});

describe('workspaceArtifactHashes', () => {
  it('hashes files as they are on disk now, and reports missing or out-of-workspace files as unknown', async () => {
    const hashes = await workspaceArtifactHashes(workspace.path)(['file:a.ts', 'file:gone.ts', 'file:../outside.ts', 'command:pnpm test']);
    expect(hashes).toEqual(
      new Map([
        ['file:a.ts', sha256Hex('export const a = 1;\n')],
        ['file:gone.ts', null],
        ['file:../outside.ts', null],
      ]),
    );
  });
});
