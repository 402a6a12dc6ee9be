import { execFileSync } from 'node:child_process';
import { chmod, link, mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sha256Hex } from '@forge/core';
import { describe, expect, it } from 'vitest';
import { loadInstructions } from './instructions.js';
import { makeTempDirectory, writeFiles } from './temp-workspace.test-helpers.js';

describe('loadInstructions', () => {
  it('collects AGENTS.md files from the repository root down to the workspace, closest last', async () => {
    const base = await makeTempDirectory();
    await mkdir(path.join(base, 'repo/.git'), { recursive: true });
    await writeFiles(base, {
      'AGENTS.md': 'above the repository: never loaded\n',
      'repo/AGENTS.md': 'repository rules\n',
      'repo/packages/AGENTS.md': 'package rules\n',
      'repo/packages/app/src/.keep': '',
    });
    const snapshot = await loadInstructions({
      workspaceRoot: path.join(base, 'repo/packages/app'),
      systemPrompt: 'You are Forge.',
      homeDirectory: base,
    });
    expect(snapshot.sources).toEqual([
      { origin: '../../AGENTS.md', sha256: sha256Hex('repository rules\n') },
      { origin: '../AGENTS.md', sha256: sha256Hex('package rules\n') },
    ]);
    expect(snapshot.text).toBe(
      [
        'You are Forge.',
        '# Instructions from ../../AGENTS.md\n\nrepository rules',
        '# Instructions from ../AGENTS.md\n\npackage rules',
      ].join('\n\n'),
    );
    expect(snapshot.text).not.toContain('never loaded');
  });

  it('treats a .git file (a worktree or submodule) as the repository root too', async () => {
    const base = await makeTempDirectory();
    await writeFiles(base, {
      'AGENTS.md': 'outer\n',
      'worktree/.git': 'gitdir: elsewhere\n',
      'worktree/AGENTS.md': 'inner\n',
    });
    const snapshot = await loadInstructions({
      workspaceRoot: path.join(base, 'worktree'),
      systemPrompt: '',
      homeDirectory: base,
    });
    expect(snapshot.sources.map((source) => source.origin)).toEqual(['AGENTS.md']);
  });

  it("outside a repository loads only the workspace root's own file, never a parent's", async () => {
    const outer = await makeTempDirectory();
    await writeFiles(outer, {
      'AGENTS.md': 'beyond home\n',
      'home/AGENTS.md': 'home rules\n',
      'home/project/AGENTS.md': 'project rules\n',
    });
    const snapshot = await loadInstructions({
      workspaceRoot: path.join(outer, 'home/project'),
      systemPrompt: 'base',
      homeDirectory: path.join(outer, 'home'),
    });
    expect(snapshot.sources.map((source) => source.origin)).toEqual(['AGENTS.md']);
  });

  it('does not look for a repository root beyond a directory others may write to (such as /tmp)', async () => {
    const outer = await makeTempDirectory();
    await mkdir(path.join(outer, '.git'));
    await writeFiles(outer, { 'AGENTS.md': 'planted by another user\n', 'shared/work/AGENTS.md': 'work rules\n' });
    await chmod(path.join(outer, 'shared'), 0o1777);
    const snapshot = await loadInstructions({
      workspaceRoot: path.join(outer, 'shared/work'),
      systemPrompt: '',
      homeDirectory: '/nonexistent-home',
    });
    expect(snapshot.sources.map((source) => source.origin)).toEqual(['AGENTS.md']);
    expect(snapshot.text).not.toContain('planted');
  });

  it('gives the same hash for the same files and a new one when a file changes', async () => {
    const base = await makeTempDirectory();
    await mkdir(path.join(base, '.git'));
    await writeFiles(base, { 'AGENTS.md': 'use tabs\n' });
    const load = () => loadInstructions({ workspaceRoot: base, systemPrompt: 'base', homeDirectory: base });
    const first = await load();
    expect((await load()).hash).toBe(first.hash);
    await writeFile(path.join(base, 'AGENTS.md'), 'use spaces\n');
    const changed = await load();
    expect(changed.hash).not.toBe(first.hash);
    expect(changed.sources[0]?.sha256).toBe(sha256Hex('use spaces\n'));
  });

  it('gives byte-identical instructions for the same repository checked out in two places', async () => {
    const checkouts = [await makeTempDirectory(), await makeTempDirectory()];
    const snapshots = [];
    for (const checkout of checkouts) {
      await mkdir(path.join(checkout, '.git'));
      await writeFiles(checkout, { 'AGENTS.md': 'use tabs\n', 'app/AGENTS.md': 'app rules\n' });
      snapshots.push(
        await loadInstructions({
          workspaceRoot: path.join(checkout, 'app'),
          systemPrompt: 'base',
          homeDirectory: checkout,
        }),
      );
    }
    expect(snapshots[0]?.text).toBe(
      'base\n\n# Instructions from ../AGENTS.md\n\nuse tabs\n\n# Instructions from AGENTS.md\n\napp rules',
    );
    expect(snapshots[1]?.text).toBe(snapshots[0]?.text);
    expect(snapshots[1]?.hash).toBe(snapshots[0]?.hash);
    for (const checkout of checkouts) expect(snapshots[0]?.text).not.toContain(checkout);
  });

  it('cuts an oversized file with a marker naming it', async () => {
    const base = await makeTempDirectory();
    await mkdir(path.join(base, '.git'));
    await writeFiles(base, { 'AGENTS.md': 'x'.repeat(100) });
    const snapshot = await loadInstructions({
      workspaceRoot: base,
      systemPrompt: '',
      homeDirectory: base,
      maxFileBytes: 10,
    });
    expect(snapshot.text).toContain(
      `${'x'.repeat(10)}\n\n[truncated: AGENTS.md is 100 bytes; only the first 10 were loaded]`,
    );
    expect(snapshot.text).not.toContain('x'.repeat(11));
  });

  it('ignores a directory named AGENTS.md and returns the system prompt alone when there are no files', async () => {
    const base = await makeTempDirectory();
    await mkdir(path.join(base, '.git'));
    await mkdir(path.join(base, 'AGENTS.md'));
    const snapshot = await loadInstructions({ workspaceRoot: base, systemPrompt: 'only me', homeDirectory: base });
    expect(snapshot.text).toBe('only me');
    expect(snapshot.sources).toEqual([]);
  });

  it('names a workspace root that does not exist', async () => {
    const base = await makeTempDirectory();
    await expect(loadInstructions({ workspaceRoot: path.join(base, 'missing'), systemPrompt: '' })).rejects.toThrow(
      `The workspace root ${path.join(base, 'missing')} cannot be opened; check that the directory exists.`,
    );
  });

  describe('with the confinement of read_file', () => {
    async function repository(): Promise<{
      base: string;
      repo: string;
      warnings: string[];
      load: () => Promise<Awaited<ReturnType<typeof loadInstructions>>>;
    }> {
      const base = await makeTempDirectory();
      const repo = path.join(base, 'repo');
      await mkdir(path.join(repo, '.git'), { recursive: true });
      await writeFiles(base, {
        'outside/credentials': 'aws_secret_access_key = outside-secret\n',
        'repo/docs/rules.md': 'inside rules\n',
      });
      const warnings: string[] = [];
      const load = () =>
        loadInstructions({
          workspaceRoot: repo,
          systemPrompt: 'base',
          homeDirectory: base,
          onWarning: (message) => warnings.push(message),
        });
      return { base, repo, warnings, load };
    }

    it('refuses an AGENTS.md that links outside the repository, and says so in one line', async () => {
      const { base, repo, warnings, load } = await repository();
      await symlink(path.join(base, 'outside/credentials'), path.join(repo, 'AGENTS.md'));
      const snapshot = await load();
      expect(snapshot.text).toBe('base');
      expect(snapshot.text).not.toContain('outside-secret');
      expect(warnings).toEqual([
        `${path.join(repo, 'AGENTS.md')} is a symbolic link to ${path.join(base, 'outside/credentials')}, outside ${repo}; it was not loaded as instructions.`,
      ]);
    });

    it('refuses a link to /etc/passwd and a dangling link', async () => {
      const { repo, warnings } = await repository();
      await mkdir(path.join(repo, 'pkg'));
      await symlink('/etc/passwd', path.join(repo, 'AGENTS.md'));
      await symlink(path.join(repo, 'missing.md'), path.join(repo, 'pkg', 'AGENTS.md'));
      const snapshot = await loadInstructions({
        workspaceRoot: path.join(repo, 'pkg'),
        systemPrompt: 'base',
        onWarning: (message) => warnings.push(message),
      });
      expect(snapshot.text).toBe('base');
      expect(warnings).toHaveLength(2);
      expect(warnings[0]).toContain('/etc/passwd, outside');
      expect(warnings[1]).toContain('which does not resolve');
    });

    it('follows a link that stays inside the repository', async () => {
      const { repo, warnings, load } = await repository();
      await symlink('docs/rules.md', path.join(repo, 'AGENTS.md'));
      const snapshot = await load();
      expect(snapshot.text).toContain('inside rules');
      expect(warnings).toEqual([]);
    });

    it('refuses a FIFO without waiting on it, and a hard link to an outside file', async () => {
      const { base, repo, warnings } = await repository();
      execFileSync('mkfifo', [path.join(repo, 'AGENTS.md')]);
      await mkdir(path.join(repo, 'pkg'));
      await link(path.join(base, 'outside/credentials'), path.join(repo, 'pkg', 'AGENTS.md'));
      const snapshot = await loadInstructions({
        workspaceRoot: path.join(repo, 'pkg'),
        systemPrompt: 'base',
        homeDirectory: base,
        onWarning: (message) => warnings.push(message),
      });
      expect(snapshot.text).toBe('base');
      expect(warnings).toEqual([
        `${path.join(repo, 'AGENTS.md')} is a FIFO, not a regular file; it was not loaded as instructions.`,
        `${path.join(repo, 'pkg', 'AGENTS.md')} has 2 hard links, and another of them may be a file outside ${repo}; it was not loaded as instructions.`,
      ]);
    });
  });
});
