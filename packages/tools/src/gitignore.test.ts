import { execFileSync } from 'node:child_process';
import { open, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitignoreRules, MAX_GITIGNORE_RULES } from './gitignore.js';
import { makeTempDirectory, writeFiles } from './temp-workspace.test-helpers.js';

/*
 * Regression (issue 17): a hostile `.gitignore` hung or crashed every listing and search. A FIFO
 * blocked the read for ever, a 40 MB sparse file ran V8 out of memory, a 10 MB single line became
 * a 10 MB error, and a link to /dev/zero read 630 MB per call. Each is now passed over with a note.
 */

function withinSeconds<T>(work: Promise<T>, seconds = 5): Promise<T> {
  return Promise.race([
    work,
    new Promise<T>((_resolve, reject) =>
      setTimeout(() => reject(new Error(`still waiting after ${seconds} s`)), seconds * 1000),
    ),
  ]);
}

describe('GitignoreRules on hostile files', () => {
  it('passes over a FIFO .gitignore at once', async () => {
    const root = await makeTempDirectory();
    execFileSync('mkfifo', [path.join(root, '.gitignore')]);
    const rules = new GitignoreRules(root);
    expect(await withinSeconds(rules.isIgnored('a.txt', false))).toBe(false);
    expect(rules.notes()).toEqual(['.gitignore was not used: .gitignore is a FIFO, not a regular file']);
  });

  it('does not follow a .gitignore that is a symbolic link (as git does), such as one to /dev/zero', async () => {
    const root = await makeTempDirectory();
    await symlink('/dev/zero', path.join(root, '.gitignore'));
    const rules = new GitignoreRules(root);
    expect(await withinSeconds(rules.isIgnored('a.txt', false))).toBe(false);
    expect(rules.notes()).toEqual(['.gitignore was not used: .gitignore is a symbolic link, not a regular file']);
  });

  it('rejects a 40 MB sparse .gitignore by its size without reading it', async () => {
    const root = await makeTempDirectory();
    const handle = await open(path.join(root, '.gitignore'), 'w');
    await handle.truncate(40 * 1024 * 1024);
    await handle.close();
    const rules = new GitignoreRules(root);
    const before = process.memoryUsage().rss;
    expect(await rules.isIgnored('a.txt', false)).toBe(false);
    expect(process.memoryUsage().rss - before).toBeLessThan(16 * 1024 * 1024);
    expect(rules.notes()).toEqual([
      '.gitignore was not used: .gitignore is 40.0 MiB, more than the 1.0 MiB Forge reads of it',
    ]);
  });

  it('leaves out a rule too long to be a path, and keeps the others', async () => {
    const root = await makeTempDirectory();
    await writeFiles(root, { 'pkg/.gitignore': `*.log\n${'a'.repeat(500_000)}\n` });
    const rules = new GitignoreRules(root);
    expect(await rules.isIgnored('pkg/debug.log', false)).toBe(true);
    expect(rules.notes()).toEqual(['pkg/.gitignore was used without 1 rule(s) longer than 4096 characters']);
  });

  it(`uses at most ${MAX_GITIGNORE_RULES} rules of one file, so every path test stays cheap`, async () => {
    const root = await makeTempDirectory();
    const many = Array.from({ length: MAX_GITIGNORE_RULES + 10 }, (_, index) => `generated-${index}/`);
    await writeFile(path.join(root, '.gitignore'), `${many.join('\n')}\n`);
    const rules = new GitignoreRules(root);
    expect(await rules.isIgnored('generated-0', true)).toBe(true);
    expect(await rules.isIgnored(`generated-${MAX_GITIGNORE_RULES + 5}`, true)).toBe(false);
    expect(rules.notes()).toEqual([
      `.gitignore was used without the 10 rule(s) after the first ${MAX_GITIGNORE_RULES}`,
    ]);
  }, 60_000);
});
