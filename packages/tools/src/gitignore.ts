import { readFile } from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';

/**
 * The `.gitignore` rules of a workspace, the root's and every nested one, loaded lazily per
 * directory. A deeper file has the last word, as in git: it can re-include what a parent ignored.
 * `.git` itself is always ignored.
 */
export class GitignoreRules {
  private readonly root: string;
  private readonly byDirectory = new Map<string, Promise<Ignore | undefined>>();

  /** `root` is the workspace's real path; the paths passed to `isIgnored` are relative to it. */
  constructor(root: string) {
    this.root = root;
  }

  /**
   * Whether the workspace-relative `relative` path (with `/` separators) is ignored. Only the
   * `.gitignore` files of its parent directories count, so walk top-down and skip ignored
   * directories, as git does.
   */
  async isIgnored(relative: string, isDirectory: boolean): Promise<boolean> {
    if (relative === '.' || relative === '') return false;
    const segments = relative.split('/');
    if (segments.includes('.git')) return true;
    let ignored = false;
    for (let depth = 0; depth < segments.length; depth += 1) {
      const directory = depth === 0 ? '.' : segments.slice(0, depth).join('/');
      const rules = await this.rulesOf(directory);
      if (rules === undefined) continue;
      const below = segments.slice(depth).join('/') + (isDirectory ? '/' : '');
      const result = rules.test(below);
      if (result.ignored) ignored = true;
      else if (result.unignored) ignored = false;
    }
    return ignored;
  }

  private rulesOf(directory: string): Promise<Ignore | undefined> {
    let rules = this.byDirectory.get(directory);
    if (rules === undefined) {
      rules = loadRules(path.join(this.root, directory, '.gitignore'));
      this.byDirectory.set(directory, rules);
    }
    return rules;
  }
}

async function loadRules(file: string): Promise<Ignore | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  return ignore().add(text);
}
