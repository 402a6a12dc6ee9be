import { readdir, rm, stat } from 'node:fs/promises';
import { isAtomicWriteTemporary } from '@forge/bounded-read';
import { basename, join } from 'node:path';
import { forgeHomeLayout } from './home.js';
import { isErrorCode } from './private-fs.js';
import { SESSION_INDEX_FILE_NAME, SESSION_LOG_FILE_NAME } from './session-files.js';

/** How long traces are kept: older than `keepDays`, and not among the newest `keepRuns`. */
export interface TraceRetentionPolicy {
  readonly keepDays: number;
  readonly keepRuns: number;
}

/** A file or directory `forge gc` would remove, and why. */
export interface PruneCandidate {
  readonly path: string;
  readonly bytes: number;
  readonly kind: 'trace' | 'orphan';
  readonly reason: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** A session build directory (`sessions/.creating-…`) this old was left by a crash, not one under way. */
const ABANDONED_BUILD_MS = DAY_MS;
/** An index temporary this old was left by a process that died between writing and renaming it. */
const ABANDONED_TEMPORARY_MS = 60 * 60 * 1000;

interface Entry {
  readonly path: string;
  readonly bytes: number;
  readonly mtimeMs: number;
}

async function entriesOf(directory: string, keep: (name: string) => boolean): Promise<Entry[]> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch (error) {
    if (isErrorCode(error, 'ENOENT') || isErrorCode(error, 'ENOTDIR')) return [];
    throw error;
  }
  const entries: Entry[] = [];
  for (const name of names.filter(keep)) {
    try {
      const stats = await stat(join(directory, name));
      entries.push({ path: join(directory, name), bytes: stats.size, mtimeMs: stats.mtimeMs });
    } catch (error) {
      if (!isErrorCode(error, 'ENOENT')) throw error;
    }
  }
  return entries;
}

/** The run traces in `runs/` with their sizes and times (newest first). */
export async function traceFiles(home: string): Promise<Entry[]> {
  const entries = await entriesOf(forgeHomeLayout(home).runs, (name) => name.endsWith('.jsonl'));
  return entries.sort((left, right) => right.mtimeMs - left.mtimeMs || left.path.localeCompare(right.path));
}

const BUILD_PREFIXES = ['.creating-', '.migrating-', '.discarding-'];

async function orphans(home: string, now: number): Promise<PruneCandidate[]> {
  const found: PruneCandidate[] = [];
  const entries = await entriesOf(forgeHomeLayout(home).sessions, () => true);
  const isBuild = (entry: Entry) => BUILD_PREFIXES.some((prefix) => basename(entry.path).startsWith(prefix));
  for (const build of entries.filter(isBuild))
    if (now - build.mtimeMs > ABANDONED_BUILD_MS)
      found.push({ ...pick(build), kind: 'orphan', reason: 'a session build directory left by a crash' });
  for (const directory of entries.filter((entry) => !basename(entry.path).startsWith('.'))) {
    const temporaries = await entriesOf(directory.path, (name) =>
      isAtomicWriteTemporary(name, SESSION_INDEX_FILE_NAME),
    );
    for (const temporary of temporaries)
      if (now - temporary.mtimeMs > ABANDONED_TEMPORARY_MS)
        found.push({ ...pick(temporary), kind: 'orphan', reason: 'an index temporary left by a process that died' });
  }
  return found;
}

function pick(entry: Entry): { path: string; bytes: number } {
  return { path: entry.path, bytes: entry.bytes };
}

/**
 * What `forge gc` would remove from FORGE_HOME: run traces older than `keepDays` that are not
 * among the newest `keepRuns`, and files a crash left behind (session build directories, index
 * temporaries). Session logs, their torn-tail files, locks and indexes are never candidates.
 */
export async function findPrunable(
  home: string,
  policy: TraceRetentionPolicy,
  now: number = Date.now(),
): Promise<PruneCandidate[]> {
  const cutoff = now - policy.keepDays * DAY_MS;
  const traces = (await traceFiles(home))
    .slice(policy.keepRuns)
    .filter((trace) => trace.mtimeMs < cutoff)
    .map((trace): PruneCandidate => ({
      ...pick(trace),
      kind: 'trace',
      reason: `a trace last written ${Math.floor((now - trace.mtimeMs) / DAY_MS)} days ago (traces.keepDays ${policy.keepDays}, traces.keepRuns ${policy.keepRuns})`,
    }));
  return [...traces, ...(await orphans(home, now))];
}

/** Removes what `findPrunable` found; refuses, as a bug, anything that is a session log. Returns the bytes freed. */
export async function prune(candidates: readonly PruneCandidate[]): Promise<number> {
  let freed = 0;
  for (const candidate of candidates) {
    if (candidate.path.endsWith(`/${SESSION_LOG_FILE_NAME}`))
      throw new Error(`forge gc was about to remove the session log ${candidate.path}; this is a bug in Forge.`);
    await rm(candidate.path, { recursive: candidate.kind === 'orphan', force: true });
    freed += candidate.bytes;
  }
  return freed;
}

/** The number of traces and their bytes, counted only when there are more than `atLeast` of them (else undefined). */
export async function traceUsage(
  home: string,
  atLeast: number,
): Promise<{ readonly count: number; readonly bytes: number } | undefined> {
  let names: string[];
  try {
    names = await readdir(forgeHomeLayout(home).runs);
  } catch {
    return undefined;
  }
  if (names.length <= atLeast) return undefined;
  const traces = await traceFiles(home);
  return { count: traces.length, bytes: traces.reduce((sum, trace) => sum + trace.bytes, 0) };
}
