import { ProblemLog, readTraceFile } from './read-traces.js';
import { INSPECT_REPORT_VERSION, type InspectReport, type RunReport } from './report.js';
import type { ResolvedTarget } from './resolve-target.js';
import { totalsOf } from './usage-totals.js';

/** Reads every trace of a resolved target, one line at a time, into one report. */
export async function buildInspectReport(resolved: ResolvedTarget): Promise<InspectReport> {
  const problems = new ProblemLog();
  for (const problem of resolved.problems) problems.add(problem);
  const runs: RunReport[] = [];
  for (const file of resolved.target.files) runs.push(...(await readTraceFile(file, problems)));
  // A session's runs and the compactions made between them, in the order they happened.
  if (resolved.target.kind === 'session')
    runs.sort((left, right) => (left.startedAt ?? '').localeCompare(right.startedAt ?? ''));
  return {
    inspectReportVersion: INSPECT_REPORT_VERSION,
    target: resolved.target,
    runs,
    ...(runs.length > 1 || resolved.target.kind === 'session' ? { totals: totalsOf(runs) } : {}),
    problems: problems.problems,
    problemsNotListed: problems.notListed,
  };
}
