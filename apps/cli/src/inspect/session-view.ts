import { UsageError } from '../cli-error.js';
import { ambiguityMessage, matchId } from '../session/resolve-session.js';
import type { InspectReport, RunReport } from './report.js';

/** A session's report cut to what `forge inspect <session>` shows: runs newest first, and one run in full. */
export interface SessionOverview {
  /** The newest runs first, at most the limit. */
  readonly listed: readonly RunReport[];
  /** Runs older than those listed. */
  readonly notListed: number;
  /** The run shown in full: `--run`, else the newest. */
  readonly detailed: RunReport | undefined;
}

/**
 * What a session report shows: one line per run, newest first, at most `limit`, and full detail
 * of the run `--run` names (an id or a unique prefix) or of the newest run. A report that is not
 * a session's keeps every run in full.
 */
export function sessionOverview(
  report: InspectReport,
  options: { readonly limit: number; readonly run?: string },
): SessionOverview {
  const newestFirst = [...report.runs].reverse();
  const listed = newestFirst.slice(0, options.limit);
  let detailed = newestFirst.find((run) => run.kind === 'run') ?? newestFirst[0];
  if (options.run !== undefined) {
    const match = matchId(
      options.run,
      report.runs.map((run) => run.runId),
    );
    if (match.kind === 'ambiguous') throw new UsageError(`--run ${ambiguityMessage(options.run, match.ids, 'runs')}`);
    if (match.kind === 'none')
      throw new UsageError(
        `--run '${options.run}': the session ${report.target.sessionId ?? report.target.argument} has no run with a trace with this id or prefix; leave --run out to see its runs`,
      );
    detailed = report.runs.find((run) => run.runId === match.id);
  }
  return { listed, notListed: newestFirst.length - listed.length, detailed };
}
