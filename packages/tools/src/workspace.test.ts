import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeTempDirectory, writeFiles } from './temp-workspace.test-helpers.js';
import { resolveWorkspacePath, WorkspacePathError } from './workspace.js';

async function refusal(root: string, requested: string): Promise<WorkspacePathError> {
  const error = await resolveWorkspacePath(root, requested).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!WorkspacePathError.isInstance(error))
    throw new Error(`expected a WorkspacePathError for ${requested}, got ${String(error)}`);
  return error as WorkspacePathError;
}

describe('resolveWorkspacePath', () => {
  it('resolves paths inside the workspace, existing or not', async () => {
    const root = await makeTempDirectory();
    await writeFiles(root, { 'src/a.ts': 'x' });
    await expect(resolveWorkspacePath(root, 'src/a.ts')).resolves.toEqual({
      absolute: path.join(root, 'src/a.ts'),
      relative: 'src/a.ts',
      exists: true,
    });
    await expect(resolveWorkspacePath(root, './src/../src/new/b.ts')).resolves.toEqual({
      absolute: path.join(root, 'src/new/b.ts'),
      relative: 'src/new/b.ts',
      exists: false,
    });
    await expect(resolveWorkspacePath(root, '.')).resolves.toEqual({ absolute: root, relative: '.', exists: true });
  });

  it('refuses absolute paths, naming the path and the workspace', async () => {
    const root = await makeTempDirectory();
    const error = await refusal(root, '/etc/passwd');
    expect(error.rule).toBe('absolute');
    expect(error.message).toBe(`Path "/etc/passwd" is absolute; use a path relative to the workspace ${root}.`);
  });

  it('refuses .. escapes, also when hidden in the middle of a path', async () => {
    const root = await makeTempDirectory();
    for (const requested of ['../x', '..', 'a/../../x', 'a/b/../../../etc']) {
      const error = await refusal(root, requested);
      expect(error.rule).toBe('outside');
      expect(error.message).toBe(`Path "${requested}" is outside the workspace ${root}; use a path inside it.`);
    }
  });

  it('refuses empty paths and paths with NUL characters', async () => {
    const root = await makeTempDirectory();
    expect((await refusal(root, '  ')).rule).toBe('empty');
    expect((await refusal(root, 'a\0b')).rule).toBe('invalid-character');
  });

  it('refuses a file symlink that points outside', async () => {
    const root = await makeTempDirectory();
    const outside = await makeTempDirectory();
    await writeFiles(outside, { 'secret.txt': 'secret' });
    await symlink(path.join(outside, 'secret.txt'), path.join(root, 'link.txt'));
    const error = await refusal(root, 'link.txt');
    expect(error.rule).toBe('symlink-outside');
    expect(error.message).toContain('outside the workspace');
    expect(error.message).toContain(path.join(outside, 'secret.txt'));
  });

  it('refuses paths through a directory symlink that points outside, for existing and new files', async () => {
    const root = await makeTempDirectory();
    const outside = await makeTempDirectory();
    await writeFiles(outside, { 'data/file.txt': 'x' });
    await mkdir(path.join(root, 'sub'));
    await symlink(path.join(outside, 'data'), path.join(root, 'sub/escape'));
    expect((await refusal(root, 'sub/escape/file.txt')).rule).toBe('symlink-outside');
    expect((await refusal(root, 'sub/escape/not-yet/new.txt')).rule).toBe('symlink-outside');
    expect((await refusal(root, 'sub/escape')).rule).toBe('symlink-outside');
  });

  it('refuses dangling symlinks, which a write could follow anywhere', async () => {
    const root = await makeTempDirectory();
    const outside = await makeTempDirectory();
    await symlink(path.join(outside, 'missing.txt'), path.join(root, 'dangling'));
    expect((await refusal(root, 'dangling')).rule).toBe('dangling-symlink');
    expect((await refusal(root, 'dangling/child.txt')).rule).toBe('dangling-symlink');
  });

  it('follows symlinks that stay inside and reports the real location', async () => {
    const root = await makeTempDirectory();
    await writeFiles(root, { 'real/file.txt': 'x' });
    await symlink(path.join(root, 'real'), path.join(root, 'alias'));
    await expect(resolveWorkspacePath(root, 'alias/file.txt')).resolves.toMatchObject({
      relative: 'real/file.txt',
      exists: true,
    });
  });

  it('accepts a workspace root that is itself reached through a symlink', async () => {
    const base = await makeTempDirectory();
    await writeFiles(base, { 'project/a.txt': 'x' });
    await symlink(path.join(base, 'project'), path.join(base, 'link-to-project'));
    await expect(resolveWorkspacePath(path.join(base, 'link-to-project'), 'a.txt')).resolves.toMatchObject({
      relative: 'a.txt',
    });
  });

  it('never returns a location outside the root, whatever the relative path', async () => {
    const root = await makeTempDirectory();
    await writeFiles(root, { 'a/b/c.txt': 'x' });
    const segment = fc.constantFrom('..', '.', 'a', 'b', 'c.txt', 'x', '');
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 6 }), async (segments) => {
        const requested = segments.join('/');
        try {
          const resolved = await resolveWorkspacePath(root, requested);
          expect(resolved.absolute === root || resolved.absolute.startsWith(`${root}${path.sep}`)).toBe(true);
        } catch (error) {
          expect(WorkspacePathError.isInstance(error)).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });
});
