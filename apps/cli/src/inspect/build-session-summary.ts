import { ProblemLog, readTraceFile } from './read-traces.js';
import { INSPECT_REPORT_VERSION, type InspectReport, type RunReport } from './report.js';
import type { ResolvedTarget } from './resolve-target.js';
import { RunIndex, runLineOf, type RunLine } from './run-index.js';
import { chooseDetailedRun } from './session-view.js';
import { totalsOf } from './usage-totals.js';

/** What `forge inspect <session>` shows without `--json`: every run's line, and one run read in full. */
export interface SessionSummary {
  /** The report of the run shown in full only (`runs` holds it), with the totals and problems of every trace. */
  readonly report: InspectReport;
  /** Every run's line, oldest first. */
  readonly lines: readonly RunLine[];
  readonly detailed: RunReport | undefined;
}

/**
 * A session's summary from its run index (`run-index.ts`): each trace that has not changed since
 * it was last read gives its lines from the index, the others are read (and the index updated),
 * and only the trace of the run shown in full is read whole. Agrees with `buildInspectReport`
 * over the same traces: the same lines, totals and problems.
 */
export async function buildSessionSummary(
  resolved: ResolvedTarget,
  options: { readonly run?: string },
): Promise<SessionSummary> {
  const { target } = resolved;
  const runIndex = resolved.runIndex ?? RunIndex.detached();
  const problems = new ProblemLog();
  for (const problem of resolved.problems) problems.add(problem);
  const readNow = new Map<string, RunReport[]>();
  const lines: RunLine[] = [];
  for (const file of target.files) {
    const entry = await runIndex.traceEntry(file, async () => {
      const found = new ProblemLog();
      const runs = await readTraceFile(file, found);
      readNow.set(file, runs);
      return { runs: runs.map(runLineOf), problems: [...found.problems], problemsNotListed: found.notListed };
    });
    lines.push(...entry.runs);
    for (const problem of entry.problems) problems.add(problem);
    problems.countNotListed(entry.problemsNotListed);
  }
  await runIndex.save();
  // A session's runs and the compactions made between them, in the order they happened.
  lines.sort((left, right) => (left.startedAt ?? '').localeCompare(right.startedAt ?? ''));
  const chosen = chooseDetailedRun(lines, {
    ...(options.run === undefined ? {} : { run: options.run }),
    sessionName: target.sessionId ?? target.argument,
  });
  const detailed =
    chosen === undefined
      ? undefined
      : (readNow.get(chosen.file) ?? (await readTraceFile(chosen.file, new ProblemLog()))).find(
          (run) => run.runId === chosen.runId,
        );
  return {
    report: {
      inspectReportVersion: INSPECT_REPORT_VERSION,
      target,
      runs: detailed === undefined ? [] : [detailed],
      totals: totalsOf(lines),
      problems: problems.problems,
      problemsNotListed: problems.notListed,
    },
    lines,
    detailed,
  };
}
