import { UsageError } from '../cli-error.js';
import { ambiguityMessage, matchId } from '../session/resolve-session.js';
import type { RunReport } from './report.js';
import type { RunLine } from './run-index.js';

/** A session's report cut to what `forge inspect <session>` shows: runs newest first, and one run in full. */
export interface SessionOverview {
  /** The newest runs first, at most the limit. */
  readonly listed: readonly RunLine[];
  /** Runs older than those listed. */
  readonly notListed: number;
  /** The run shown in full: `--run`, else the newest. */
  readonly detailed: RunReport | undefined;
  /** Runs with traces, and manual compactions, of the whole session. */
  readonly runs: number;
  readonly compactions: number;
}

/**
 * The run a session report shows in full: the one `--run` names (an id or a unique prefix), else
 * the newest run (the newest compaction when there is no run). `lines` are oldest first.
 */
export function chooseDetailedRun<Line extends RunLine>(
  lines: readonly Line[],
  options: { readonly run?: string; readonly sessionName: string },
): Line | undefined {
  if (options.run === undefined) {
    for (let index = lines.length - 1; index >= 0; index -= 1) if (lines[index]?.kind === 'run') return lines[index];
    return lines.at(-1);
  }
  const match = matchId(
    options.run,
    lines.map((run) => run.runId),
  );
  if (match.kind === 'ambiguous') throw new UsageError(`--run ${ambiguityMessage(options.run, match.ids, 'runs')}`);
  if (match.kind === 'none')
    throw new UsageError(
      `--run '${options.run}': the session ${options.sessionName} has no run with a trace with this id or prefix; leave --run out to see its runs`,
    );
  return lines.find((run) => run.runId === match.id);
}

/** One line per run, newest first, at most `limit`, beside the run shown in full. `lines` are oldest first. */
export function sessionOverview(
  lines: readonly RunLine[],
  detailed: RunReport | undefined,
  limit: number,
): SessionOverview {
  const newestFirst = [...lines].reverse();
  const listed = newestFirst.slice(0, limit);
  const compactions = lines.filter((run) => run.kind === 'compaction').length;
  return {
    listed,
    notListed: newestFirst.length - listed.length,
    detailed,
    runs: lines.length - compactions,
    compactions,
  };
}
