import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { ForgeError } from '@forge/core';
import { ensurePrivateDirectory, isErrorCode } from './private-fs.js';

/** Where Forge keeps its files. All paths are absolute. */
export interface ForgeHomeLayout {
  readonly root: string;
  /** One directory per session (schema v2), or `<id>.json` files written by schema v1. */
  readonly sessions: string;
  /** One `<run-id>.jsonl` trace per run. */
  readonly runs: string;
  /** Opaque provider state, one file per conversation identity. */
  readonly state: string;
  readonly config: string;
}

export interface ResolveForgeHomeOptions {
  /** Value of a `--forge-home` flag, if given; wins over the environment. */
  readonly flag?: string | undefined;
  /** The environment to read `FORGE_HOME` from (usually `process.env`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The user's home directory; defaults to `os.homedir()`. */
  readonly homeDirectory?: string;
  /** Base for a relative flag or variable; defaults to `process.cwd()`. */
  readonly cwd?: string;
}

function expand(path: string, homeDirectory: string, cwd: string): string {
  if (path === '~') return homeDirectory;
  if (path.startsWith('~/')) return join(homeDirectory, path.slice(2));
  return isAbsolute(path) ? resolve(path) : resolve(cwd, path);
}

/**
 * The FORGE_HOME directory: the flag if given, else the `FORGE_HOME` variable, else `~/.forge`.
 * Empty values count as absent; a leading `~/` is expanded; relative paths are taken from `cwd`.
 */
export function resolveForgeHome(options: ResolveForgeHomeOptions): string {
  const homeDirectory = options.homeDirectory ?? homedir();
  const cwd = options.cwd ?? process.cwd();
  const chosen = [options.flag, options.env.FORGE_HOME].find((value) => value !== undefined && value.trim() !== '');
  return chosen === undefined ? join(homeDirectory, '.forge') : expand(chosen, homeDirectory, cwd);
}

/** The paths inside a FORGE_HOME directory; creates nothing. */
export function forgeHomeLayout(root: string): ForgeHomeLayout {
  const absolute = resolve(root);
  return {
    root: absolute,
    sessions: join(absolute, 'sessions'),
    runs: join(absolute, 'runs'),
    state: join(absolute, 'state'),
    config: join(absolute, 'config.json'),
  };
}

const FIX = 'Point FORGE_HOME (or --forge-home) at a directory you can write';

/**
 * FORGE_HOME cannot be used: it is a file, lies below a file, or cannot be created or written.
 * The message names FORGE_HOME, what is wrong and what to do.
 */
export class ForgeHomeError extends ForgeError {
  static override readonly errorCode = 'forge_home_unusable';
  readonly home: string;

  constructor(options: { home: string; problem: string; fix: string; cause?: unknown }) {
    super({
      code: ForgeHomeError.errorCode,
      message: `FORGE_HOME ${options.home} ${options.problem}. ${options.fix}.`,
      cause: options.cause,
    });
    this.name = 'ForgeHomeError';
    this.home = options.home;
  }
}

/** The closest of `path` and its parents that exists, with whether it is a directory. */
async function nearestExisting(path: string): Promise<{ readonly path: string; readonly directory: boolean }> {
  for (let current = path; ; current = dirname(current)) {
    try {
      return { path: current, directory: (await stat(current)).isDirectory() };
    } catch (error) {
      if (!isErrorCode(error, 'ENOENT') && !isErrorCode(error, 'ENOTDIR')) throw error;
      if (dirname(current) === current) return { path: current, directory: true };
    }
  }
}

/**
 * Checks that FORGE_HOME can be read: it is a directory, or does not exist yet under a directory.
 * Throws a `ForgeHomeError` when it is a file or lies below one. Creates nothing.
 */
export async function checkForgeHome(root: string): Promise<void> {
  const home = resolve(root);
  const found = await nearestExisting(home);
  if (found.directory) return;
  throw new ForgeHomeError(
    found.path === home
      ? { home, problem: 'is a file, not a directory', fix: `${FIX}, or move the file away` }
      : { home, problem: `cannot be a directory: ${found.path} is a file`, fix: `${FIX}, or move ${found.path} away` },
  );
}

const HOME_FAILURES: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  // mkdir in a file system that holds no user directories (/proc, /sys) fails with ENOENT.
  ENOENT: 'the file system there does not allow it',
};

/**
 * A file system failure while setting FORGE_HOME up, as a `ForgeHomeError` when it is one the
 * user must fix. A home that exists is "not writable" (naming the directory that refused), one
 * that does not "cannot be created" (naming the directory it would be created in).
 */
async function forgeHomeProblem(error: unknown, home: string): Promise<unknown> {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const failure = code === undefined ? undefined : HOME_FAILURES[code];
  if (failure === undefined) return error;
  const reason = `${failure} (${code})`;
  const failedAt = (error as NodeJS.ErrnoException).path ?? home;
  // Permissions can be changed; a read-only or special file system cannot be written however they are set.
  const fixAt = (where: string) =>
    code === 'EACCES' || code === 'EPERM' ? `${FIX}, or fix the permissions of ${where}` : FIX;
  const homeExists = await stat(home).then(
    (found) => found.isDirectory(),
    () => false,
  );
  if (homeExists) {
    const where = (await nearestExisting(failedAt)).path;
    return new ForgeHomeError({
      home,
      problem: `is not writable: ${reason} at ${where}`,
      fix: fixAt(where),
      cause: error,
    });
  }
  const where = (await nearestExisting(dirname(home))).path;
  return new ForgeHomeError({
    home,
    problem: `cannot be created: ${reason} in ${where}`,
    fix: fixAt(where),
    cause: error,
  });
}

/**
 * Creates FORGE_HOME and its `sessions/`, `runs/` and `state/` directories (0700) when missing,
 * and makes sure they are writable. A home that is a file, lies below one, or cannot be created
 * or written throws a `ForgeHomeError`.
 */
export async function ensureForgeHome(root: string): Promise<ForgeHomeLayout> {
  const layout = forgeHomeLayout(root);
  await checkForgeHome(layout.root);
  const directories = [layout.sessions, layout.runs, layout.state];
  try {
    await ensurePrivateDirectory(layout.root);
    await Promise.all(directories.map((directory) => ensurePrivateDirectory(directory)));
    await Promise.all(
      [layout.root, ...directories].map((directory) => access(directory, constants.W_OK | constants.X_OK)),
    );
  } catch (error) {
    throw await forgeHomeProblem(error, layout.root);
  }
  return layout;
}
