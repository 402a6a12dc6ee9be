import { mkdir, writeFile } from 'node:fs/promises';
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
    const snapshot = await loadInstructions({ workspaceRoot: path.join(base, 'repo/packages/app'), systemPrompt: 'You are Forge.', homeDirectory: base });
    expect(snapshot.sources).toEqual([
      { origin: path.join(base, 'repo/AGENTS.md'), sha256: sha256Hex('repository rules\n') },
      { origin: path.join(base, 'repo/packages/AGENTS.md'), sha256: sha256Hex('package rules\n') },
    ]);
    expect(snapshot.text).toBe(
      [
        'You are Forge.',
        `# Instructions from ${path.join(base, 'repo/AGENTS.md')}\n\nrepository rules`,
        `# Instructions from ${path.join(base, 'repo/packages/AGENTS.md')}\n\npackage rules`,
      ].join('\n\n'),
    );
    expect(snapshot.text).not.toContain('never loaded');
  });

  it('treats a .git file (a worktree or submodule) as the repository root too', async () => {
    const base = await makeTempDirectory();
    await writeFiles(base, { 'AGENTS.md': 'outer\n', 'worktree/.git': 'gitdir: elsewhere\n', 'worktree/AGENTS.md': 'inner\n' });
    const snapshot = await loadInstructions({ workspaceRoot: path.join(base, 'worktree'), systemPrompt: '', homeDirectory: base });
    expect(snapshot.sources.map((source) => source.origin)).toEqual([path.join(base, 'worktree/AGENTS.md')]);
  });

  it('stops at the home directory outside a repository, including its own file', async () => {
    const outer = await makeTempDirectory();
    await writeFiles(outer, { 'AGENTS.md': 'beyond home\n', 'home/AGENTS.md': 'home rules\n', 'home/project/AGENTS.md': 'project rules\n' });
    const snapshot = await loadInstructions({
      workspaceRoot: path.join(outer, 'home/project'),
      systemPrompt: 'base',
      homeDirectory: path.join(outer, 'home'),
    });
    expect(snapshot.sources.map((source) => source.origin)).toEqual([path.join(outer, 'home/AGENTS.md'), path.join(outer, 'home/project/AGENTS.md')]);
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

  it('cuts an oversized file with a marker naming it', async () => {
    const base = await makeTempDirectory();
    await mkdir(path.join(base, '.git'));
    await writeFiles(base, { 'AGENTS.md': 'x'.repeat(100) });
    const snapshot = await loadInstructions({ workspaceRoot: base, systemPrompt: '', homeDirectory: base, maxFileBytes: 10 });
    expect(snapshot.text).toContain(`${'x'.repeat(10)}\n\n[truncated: ${path.join(base, 'AGENTS.md')} is 100 bytes; only the first 10 were loaded]`);
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
});
