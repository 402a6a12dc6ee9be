import path from 'node:path';
import { describeRefusal, readRegularFile } from '@forge/bounded-read';
import {
  GitignoreMatcher,
  MAX_AVERAGE_MILLISECONDS,
  MAX_COMPILE_MILLISECONDS,
  MAX_MILLISECONDS_PER_PATH,
} from './gitignore-matcher.js';

/** A `.gitignore` larger than this is not used (git's own limit is 100 MB; real ones are a few KiB). */
const MAX_GITIGNORE_BYTES = 1024 * 1024;
/** Rules after this many in one file are not used: every rule costs time on every path tested. */
export const MAX_GITIGNORE_RULES = 2000;
/** A rule longer than this (no path component is) is not used. */
const MAX_GITIGNORE_RULE_CHARACTERS = 4096;
/** Notes kept about `.gitignore` files that were not used, or only in part. */
const MAX_NOTES = 5;

/**
 * The `.gitignore` rules of a workspace, the root's and every nested one, loaded lazily per
 * directory. A deeper file has the last word, as in git: it can re-include what a parent ignored.
 * `.git` itself is always ignored. Like git, a `.gitignore` that is a symbolic link is not
 * followed; one that is not a regular file (a FIFO, a device) or is too large is not read at all.
 * What was not used is told by `notes`, for the tool output.
 */
export class GitignoreRules {
  private readonly root: string;
  private readonly byDirectory = new Map<string, Promise<LoadedRules | undefined>>();
  private readonly problems: string[] = [];
  private unlisted = 0;

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
      const result = rules.matcher.test(below);
      if (result === 'given-up') {
        this.giveUp(rules);
        continue;
      }
      if (result.ignored) ignored = true;
      else if (result.unignored) ignored = false;
    }
    return ignored;
  }

  /** One sentence per `.gitignore` that was not used, or used only in part, so far. */
  notes(): string[] {
    return this.unlisted === 0
      ? [...this.problems]
      : [...this.problems, `${this.unlisted} more .gitignore files were not used in full`];
  }

  private note(problem: string): void {
    if (this.problems.length < MAX_NOTES) this.problems.push(problem);
    else this.unlisted += 1;
  }

  /** Says once that `rules`' file is no longer used because its rules cost too much to test. */
  private giveUp(rules: LoadedRules): void {
    if (rules.givenUp) return;
    rules.givenUp = true;
    const { milliseconds, paths } = rules.matcher.cost;
    this.note(
      `${rules.file} was not used for the rest of this walk: its rules took ${milliseconds} ms to test on ${paths} path(s) ` +
        `(the bound is ${MAX_AVERAGE_MILLISECONDS} ms per path on average and ${MAX_MILLISECONDS_PER_PATH} ms for one); ` +
        'what it would exclude is listed from here on. Simplify its patterns (fewer * in one rule)',
    );
  }

  private rulesOf(directory: string): Promise<LoadedRules | undefined> {
    let rules = this.byDirectory.get(directory);
    if (rules === undefined) {
      rules = this.loadRules(directory === '.' ? '.gitignore' : `${directory}/.gitignore`);
      this.byDirectory.set(directory, rules);
    }
    return rules;
  }

  private async loadRules(relativeFile: string): Promise<LoadedRules | undefined> {
    let read;
    try {
      read = await readRegularFile(path.join(this.root, relativeFile), {
        maxBytes: MAX_GITIGNORE_BYTES,
        followSymlinks: false,
      });
    } catch (error) {
      this.note(
        `${relativeFile} was not used: it cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      );
      return undefined;
    }
    if (read.kind === 'missing') return undefined;
    if (read.kind !== 'read') {
      this.note(`${relativeFile} was not used: ${describeRefusal(relativeFile, read)}`);
      return undefined;
    }
    const lines = read.bytes.toString('utf8').split(/\r?\n/);
    const kept = lines.filter(
      (line) => line.length <= MAX_GITIGNORE_RULE_CHARACTERS && line.trim() !== '' && !line.startsWith('#'),
    );
    const tooLong = lines.filter((line) => line.length > MAX_GITIGNORE_RULE_CHARACTERS).length;
    const used = kept.slice(0, MAX_GITIGNORE_RULES);
    const rules = GitignoreMatcher.compile(used);
    if ('tooSlow' in rules) {
      this.note(
        `${relativeFile} was not used: compiling its ${used.length} rules took more than ${MAX_COMPILE_MILLISECONDS} ms ` +
          `(stopped after ${rules.tooSlow} ms; 2,000 plain rules take about 130 ms), so matching them would be slower still. ` +
          'Simplify its patterns (shorter rules, fewer * in one rule)',
      );
      return undefined;
    }
    const left: string[] = [];
    if (tooLong > 0) left.push(`${tooLong} rule(s) longer than ${MAX_GITIGNORE_RULE_CHARACTERS} characters`);
    if (kept.length > used.length)
      left.push(`the ${kept.length - used.length} rule(s) after the first ${MAX_GITIGNORE_RULES}`);
    if (rules.invalid > 0) left.push(`${rules.invalid} rule(s) that cannot be compiled`);
    if (left.length > 0) this.note(`${relativeFile} was used without ${left.join(', ')}`);
    return { file: relativeFile, matcher: rules.matcher, givenUp: false };
  }
}

/** One `.gitignore` as loaded: its workspace-relative path and its compiled rules. */
interface LoadedRules {
  readonly file: string;
  readonly matcher: GitignoreMatcher;
  givenUp: boolean;
}
