import { manualCompactionTracePrefix } from '@forge/sessions';
import { assertSafeId, InvalidInputError } from '@forge/core';
import {
  forgeHomeLayout,
  loadTranscript,
  SessionNotFoundError,
  sessionIds,
  sessionRunIds,
  traceFile,
} from '@forge/persistence';
import { statSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UsageError } from '../cli-error.js';
import { ambiguityMessage, lastWorkspaceSession, matchId } from '../session/resolve-session.js';
import type { InspectTarget, TraceProblem } from './report.js';
import { RunIndex } from './run-index.js';

/** What the user asked to inspect, turned into trace files. */
export interface ResolvedTarget {
  readonly target: InspectTarget;
  /** Problems found before reading, such as a session run whose trace is gone. */
  readonly problems: readonly TraceProblem[];
  /** A session's run index (`run-index.ts`), for a summary that reads one trace instead of all. */
  readonly runIndex?: RunIndex;
}

async function fileKind(path: string): Promise<'file' | 'directory' | 'missing'> {
  try {
    const stats = await stat(path);
    return stats.isDirectory() ? 'directory' : 'file';
  } catch (error) {
    if (error instanceof Error && 'code' in error && (error.code === 'ENOENT' || error.code === 'ENOTDIR'))
      return 'missing';
    throw error;
  }
}

/** The ids of the run traces in `runs/` (file names without `.jsonl`). */
async function traceIds(home: string): Promise<string[]> {
  try {
    return (await readdir(forgeHomeLayout(home).runs))
      .filter((name) => name.endsWith('.jsonl'))
      .map((name) => name.slice(0, -'.jsonl'.length));
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return [];
    throw error;
  }
}

/** `--last`: the newest run of this workspace's most recent session, like `--last` everywhere. */
async function lastRun(home: string, workspaceRoot: string): Promise<ResolvedTarget> {
  const session = await lastWorkspaceSession({
    forgeHome: home,
    workspaceRoot,
    listHint: "run 'forge sessions list', then 'forge inspect <session-id>'",
  });
  // The run index's ids are read, not written: this reads one trace, and a save would forget the others.
  const runIds =
    RunIndex.open(home, session.id).knownRunIds() ??
    (await loadTranscript(home, session.id)).runs.map((run) => run.runId);
  for (const runId of [...runIds].reverse()) {
    const file = traceFile(home, runId);
    if ((await fileKind(file)) === 'file')
      return { target: { kind: 'last', argument: '--last', sessionId: session.id, files: [file] }, problems: [] };
  }
  throw new UsageError(
    `the newest session of ${workspaceRoot} (${session.id}) has no run with a trace in ${forgeHomeLayout(home).runs}; inspect another session, or a trace file`,
  );
}

/** Traces of compactions made with `forge compact` or `/compact`, named `compact_<session-id>_…` in `runs/`. */
async function compactionTraces(home: string, sessionId: string): Promise<string[]> {
  const prefix = `${manualCompactionTracePrefix(sessionId)}`;
  return (await traceIds(home))
    .filter((id) => id.startsWith(prefix))
    .sort()
    .map((id) => traceFile(home, id));
}

/**
 * A session's run ids: from its run index while the log is as it was, from the records appended
 * since when it only grew, else read from the whole log (and remembered).
 */
async function sessionRunIdsOf(home: string, sessionId: string, runIndex: RunIndex): Promise<readonly string[]> {
  const known = runIndex.knownRunIds();
  if (known !== undefined) return known;
  // A v1 session (or none at all) has no log of its own to index: it is loaded, as ever.
  if (!runIndex.keepsRunIds()) return (await loadTranscript(home, sessionId)).runs.map((run) => run.runId);
  const read = await sessionRunIds(home, sessionId, runIndex.recordedRunIds());
  runIndex.rememberRunIds(read);
  return read.runIds;
}

async function sessionTraces(home: string, sessionId: string): Promise<ResolvedTarget | undefined> {
  const runIndex = RunIndex.open(home, sessionId);
  let runIds: readonly string[];
  try {
    runIds = await sessionRunIdsOf(home, sessionId, runIndex);
  } catch (error) {
    if (SessionNotFoundError.isInstance(error)) return undefined;
    throw error;
  }
  const files: string[] = [];
  const problems: TraceProblem[] = [];
  for (const runId of runIds) {
    const file = traceFile(home, runId);
    // One synchronous stat per run: a session of thousands of runs would otherwise wait on as many calls.
    if (statSync(file, { throwIfNoEntry: false })?.isFile() === true) {
      files.push(file);
    } else {
      problems.push({
        kind: 'missing_trace',
        file,
        message: `Session ${sessionId} records run ${runId}, but its trace ${file} does not exist.`,
      });
    }
  }
  files.push(...(await compactionTraces(home, sessionId)));
  return { target: { kind: 'session', argument: sessionId, sessionId, files }, problems, runIndex };
}

/**
 * Turns `forge inspect`'s argument into trace files: an existing file path; a run id
 * (`runs/<id>.jsonl`); a session id (the traces of every run the session records, and of its
 * manual compactions); a unique prefix of a run or session id; or, with `last`, the newest run of
 * the workspace's most recent session. Throws a `UsageError` (exit 2) for anything it cannot find.
 */
export async function resolveTarget(options: {
  readonly argument: string | undefined;
  readonly last: boolean;
  readonly home: string;
  readonly cwd: string;
  readonly workspaceRoot: string;
}): Promise<ResolvedTarget> {
  const { argument, home } = options;
  if (options.last) {
    if (argument !== undefined)
      throw new UsageError(
        `give either --last or a run, session or trace file, not both (got '${argument}' and --last)`,
      );
    return lastRun(home, options.workspaceRoot);
  }
  if (argument === undefined || argument.trim() === '') {
    throw new UsageError('say what to inspect: a run id, a session id or a trace file, or --last for the newest run');
  }

  const path = resolve(options.cwd, argument);
  const kind = await fileKind(path);
  if (kind === 'directory')
    throw new UsageError(`${path} is a directory; give a trace file (runs/<run-id>.jsonl), a run id or a session id`);
  if (kind === 'file') return { target: { kind: 'file', argument, files: [path] }, problems: [] };

  try {
    assertSafeId(argument, 'run or session id');
  } catch (error) {
    if (!InvalidInputError.isInstance(error)) throw error;
    throw new UsageError(
      `there is no file ${path}, and '${argument}' is not a run or session id either. ${error.message}`,
    );
  }
  const runFile = traceFile(home, argument);
  if ((await fileKind(runFile)) === 'file')
    return { target: { kind: 'run', argument, files: [runFile] }, problems: [] };
  const session = await sessionTraces(home, argument);
  if (session !== undefined) return session;

  const runs = await traceIds(home);
  const match = matchId(argument, [...new Set([...runs, ...(await sessionIds(home))])]);
  if (match.kind === 'ambiguous') throw new UsageError(ambiguityMessage(argument, match.ids, 'runs and sessions'));
  if (match.kind === 'found') {
    if (runs.includes(match.id))
      return { target: { kind: 'run', argument, files: [traceFile(home, match.id)] }, problems: [] };
    const prefixed = await sessionTraces(home, match.id);
    if (prefixed !== undefined) return prefixed;
  }

  const layout = forgeHomeLayout(home);
  throw new UsageError(
    `no run or session '${argument}' in ${layout.root} (looked for ${runFile} and a session in ${layout.sessions}); check the id, set FORGE_HOME, or use 'forge inspect --last' for this workspace's newest run`,
  );
}
