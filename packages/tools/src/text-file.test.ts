import { mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDirectory } from './temp-workspace.test-helpers.js';
import { loadFile } from './text-file.js';
import { resolveWorkspacePath, WorkspacePathError } from './workspace.js';

/*
 * Regression: read_file and edit_file opened the approved path by name, so a directory on it
 * swapped for a symbolic link after the confinement check (time of check to time of use) let them
 * read a file outside the workspace. The reliability suite's swap race read one in ~250 tries. The
 * file actually opened is now checked again.
 */

async function workspaceWithOutside(): Promise<{ root: string; outside: string }> {
  const base = await makeTempDirectory();
  const root = path.join(base, 'workspace');
  const outside = path.join(base, 'outside');
  await mkdir(path.join(root, 'real'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(root, 'real', 'secret.txt'), 'inside\n');
  await writeFile(path.join(outside, 'secret.txt'), 'outside\n');
  return { root, outside };
}

describe('loadFile after the path was approved', () => {
  it('reads the approved file when nothing changed', async () => {
    const { root } = await workspaceWithOutside();
    const approved = await resolveWorkspacePath(root, 'real/secret.txt');
    const loaded = await loadFile(approved.absolute, root, 'real/secret.txt');
    expect(loaded.kind === 'ok' ? loaded.bytes.toString() : loaded.kind).toBe('inside\n');
  });

  it('refuses when a directory on the path became a link to the outside', async () => {
    const { root, outside } = await workspaceWithOutside();
    const approved = await resolveWorkspacePath(root, 'real/secret.txt');
    await rename(path.join(root, 'real'), path.join(root, 'parked'));
    await symlink(outside, path.join(root, 'real'));
    const error = await loadFile(approved.absolute, root, 'real/secret.txt').catch((caught: unknown) => caught);
    expect(WorkspacePathError.isInstance(error)).toBe(true);
    expect((error as WorkspacePathError).rule).toBe('symlink-outside');
  });

  it('refuses when the file itself became a link', async () => {
    const { root, outside } = await workspaceWithOutside();
    const approved = await resolveWorkspacePath(root, 'real/secret.txt');
    await rm(path.join(root, 'real', 'secret.txt'));
    await symlink(path.join(outside, 'secret.txt'), path.join(root, 'real', 'secret.txt'));
    const error = await loadFile(approved.absolute, root, 'real/secret.txt').catch((caught: unknown) => caught);
    expect(WorkspacePathError.isInstance(error)).toBe(true);
  });
});
