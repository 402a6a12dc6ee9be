import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { ensurePrivateDirectory } from './private-fs.js';

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
  readonly flag?: string;
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

/** Creates FORGE_HOME and its `sessions/`, `runs/` and `state/` directories (0700) when missing. */
export async function ensureForgeHome(root: string): Promise<ForgeHomeLayout> {
  const layout = forgeHomeLayout(root);
  await ensurePrivateDirectory(layout.root);
  await Promise.all([ensurePrivateDirectory(layout.sessions), ensurePrivateDirectory(layout.runs), ensurePrivateDirectory(layout.state)]);
  return layout;
}
