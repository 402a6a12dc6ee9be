import { assertSafeId, InvalidInputError } from '@forge/core';
import { forgeHomeLayout, loadTranscript, SessionNotFoundError, traceFile } from '@forge/persistence';
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { UsageError } from '../cli-error.js';
import type { InspectTarget, TraceProblem } from './report.js';

/** What the user asked to inspect, turned into trace files. */
export interface ResolvedTarget {
  readonly target: InspectTarget;
  /** Problems found before reading, such as a session run whose trace is gone. */
  readonly problems: readonly TraceProblem[];
}

async function fileKind(path: string): Promise<'file' | 'directory' | 'missing'> {
  try {
    const stats = await stat(path);
    return stats.isDirectory() ? 'directory' : 'file';
  } catch (error) {
    if (error instanceof Error && 'code' in error && (error.code === 'ENOENT' || error.code === 'ENOTDIR')) return 'missing';
    throw error;
  }
}

/** The trace in `runs/` written last. */
async function newestTrace(home: string): Promise<string> {
  const runs = forgeHomeLayout(home).runs;
  let names: string[];
  try {
    names = (await readdir(runs)).filter((name) => name.endsWith('.jsonl'));
  } catch (error) {
    if (!(error instanceof Error && 'code' in error && error.code === 'ENOENT')) throw error;
    names = [];
  }
  let newest: { file: string; modified: number } | undefined;
  for (const name of names) {
    const file = join(runs, name);
    const modified = (await stat(file)).mtimeMs;
    if (newest === undefined || modified > newest.modified || (modified === newest.modified && file > newest.file)) newest = { file, modified };
  }
  if (newest === undefined) {
    throw new UsageError(`there are no run traces in ${runs} yet; run a prompt first (forge run "…"), or set FORGE_HOME to the Forge home that holds them`);
  }
  return newest.file;
}

async function sessionTraces(home: string, sessionId: string): Promise<ResolvedTarget | undefined> {
  let runIds: string[];
  try {
    runIds = (await loadTranscript(home, sessionId)).runs.map((run) => run.runId);
  } catch (error) {
    if (SessionNotFoundError.isInstance(error)) return undefined;
    throw error;
  }
  const files: string[] = [];
  const problems: TraceProblem[] = [];
  for (const runId of runIds) {
    const file = traceFile(home, runId);
    if ((await fileKind(file)) === 'file') {
      files.push(file);
    } else {
      problems.push({ kind: 'missing_trace', file, message: `Session ${sessionId} records run ${runId}, but its trace ${file} does not exist.` });
    }
  }
  return { target: { kind: 'session', argument: sessionId, sessionId, files }, problems };
}

/**
 * Turns `forge inspect`'s argument into trace files: an existing file path; a run id
 * (`runs/<id>.jsonl`); a session id (the traces of every run the session records); or, with
 * `last`, the newest trace. Throws a `UsageError` (exit 2) for anything it cannot find.
 */
export async function resolveTarget(options: {
  readonly argument: string | undefined;
  readonly last: boolean;
  readonly home: string;
  readonly cwd: string;
}): Promise<ResolvedTarget> {
  const { argument, home } = options;
  if (options.last) {
    if (argument !== undefined) throw new UsageError(`give either --last or a run, session or trace file, not both (got '${argument}' and --last)`);
    return { target: { kind: 'last', argument: '--last', files: [await newestTrace(home)] }, problems: [] };
  }
  if (argument === undefined || argument.trim() === '') {
    throw new UsageError('say what to inspect: a run id, a session id or a trace file, or --last for the newest run');
  }

  const path = resolve(options.cwd, argument);
  const kind = await fileKind(path);
  if (kind === 'directory') throw new UsageError(`${path} is a directory; give a trace file (runs/<run-id>.jsonl), a run id or a session id`);
  if (kind === 'file') return { target: { kind: 'file', argument, files: [path] }, problems: [] };

  try {
    assertSafeId(argument, 'run or session id');
  } catch (error) {
    if (!InvalidInputError.isInstance(error)) throw error;
    throw new UsageError(`there is no file ${path}, and '${argument}' is not a run or session id either. ${error.message}`);
  }
  const runFile = traceFile(home, argument);
  if ((await fileKind(runFile)) === 'file') return { target: { kind: 'run', argument, files: [runFile] }, problems: [] };
  const session = await sessionTraces(home, argument);
  if (session !== undefined) return session;

  const layout = forgeHomeLayout(home);
  throw new UsageError(
    `no run or session '${argument}' in ${layout.root} (looked for ${runFile} and a session in ${layout.sessions}); check the id, set FORGE_HOME, or use 'forge inspect --last' for the newest run`,
  );
}
