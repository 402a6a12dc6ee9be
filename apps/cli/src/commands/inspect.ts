import { checkForgeHome, PRIVATE_FILE_MODE, resolveForgeHome } from '@forge/persistence';
import { writeFileAtomic } from '@forge/bounded-read';
import { resolve } from 'node:path';
import { resolveWorkspaceRoot } from '../agent/workspace.js';
import { CliError, UsageError } from '../cli-error.js';
import { ExitCode } from '../exit-codes.js';
import { buildInspectReport } from '../inspect/build-report.js';
import { renderHtml } from '../inspect/render-html.js';
import { jsonPieces } from '../inspect/render-json.js';
import { renderText } from '../inspect/render-text.js';
import { buildSessionSummary } from '../inspect/build-session-summary.js';
import type { InspectReport } from '../inspect/report.js';
import { resolveTarget, type ResolvedTarget } from '../inspect/resolve-target.js';
import { chooseDetailedRun, sessionOverview, type SessionOverview } from '../inspect/session-view.js';
import { styleFor } from '../output/style.js';
import type { CliOutput } from '../io.js';
import { DEFAULT_INSPECT_RUN_LIMIT, type InspectOptions } from '../program.js';
import type { CommandInvocation } from './command.js';

/** Writes pieces one after another, waiting whenever the stream asks the writer to (a slow pipe). */
async function writePieces(stream: CliOutput, pieces: Iterable<string>): Promise<void> {
  for (const piece of pieces) {
    if (!stream.write(piece)) await new Promise<void>((resolve) => stream.once('drain', () => resolve()));
  }
}

/**
 * The report to render, and for a session its overview at a given number of rows. `--json` prints
 * every run in full, so it reads every trace whole; otherwise a session is summarized from its run
 * index and only the run shown in full is read whole.
 */
async function reportOf(
  resolved: ResolvedTarget,
  options: InspectOptions,
): Promise<{ readonly report: InspectReport; readonly overviewOf?: (rows: number) => SessionOverview }> {
  const { target } = resolved;
  const choice = options.run === undefined ? {} : { run: options.run };
  if (target.kind !== 'session') return { report: await buildInspectReport(resolved) };
  if (options.json !== true) {
    const summary = await buildSessionSummary(resolved, choice);
    return {
      report: summary.report,
      overviewOf: (rows) => sessionOverview(summary.lines, summary.detailed, rows),
    };
  }
  const report = await buildInspectReport(resolved);
  const detailed = chooseDetailedRun(report.runs, { ...choice, sessionName: target.sessionId ?? target.argument });
  return { report, overviewOf: (rows) => sessionOverview(report.runs, detailed, rows) };
}

/** Runs a session's HTML page lists, one row each, unless `--limit` asks for more. */
const HTML_RUN_ROWS = 200;

/**
 * `forge inspect <run-id | session-id | trace file>` and `forge inspect --last`: reads the traces
 * line by line and prints the run summary, the budget per step, compactions, stops and tool calls
 * (`--json`: the same report as one JSON document; `--html FILE`: also a self-contained page with
 * a chart). A session is shown as one line per run, newest first (`--limit`), and one run in full
 * (`--run`, else the newest). Exit 0 with a report, 1 when the traces hold no run events, 2 when the target cannot be found.
 */
export async function execute({ args, options, io }: CommandInvocation<InspectOptions>): Promise<number> {
  const argument = typeof args[0] === 'string' ? args[0] : undefined;
  const home = resolveForgeHome({ flag: options.forgeHome, env: io.env, cwd: io.cwd });
  await checkForgeHome(home);
  const workspaceRoot = await resolveWorkspaceRoot(io.cwd, options.cwd);
  const resolved = await resolveTarget({ argument, last: options.last === true, home, cwd: io.cwd, workspaceRoot });
  if (options.run !== undefined && resolved.target.kind !== 'session')
    throw new UsageError('--run chooses a run of a session; give a session id to inspect (or leave --run out)');
  const { report, overviewOf } = await reportOf(resolved, options);
  const limit = options.limit ?? DEFAULT_INSPECT_RUN_LIMIT;
  const overview = overviewOf?.(limit);

  const htmlFile = options.html;
  if (htmlFile !== undefined) {
    const path = resolve(io.cwd, htmlFile);
    try {
      // Readable by its owner only, like every other file Forge writes; an existing page is replaced whole.
      const page = renderHtml(report, overviewOf?.(Math.max(limit, HTML_RUN_ROWS)));
      await writeFileAtomic(path, page, { mode: PRIVATE_FILE_MODE });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new CliError(`could not write the HTML report to ${path} (${reason}); choose a writable path for --html`);
    }
    io.stderr.write(`forge: wrote the HTML report to ${path}\n`);
  }

  if (options.json === true) {
    if (io.stdout.isTTY === true) io.stdout.write(`${JSON.stringify(report, undefined, 2)}\n`);
    else await writePieces(io.stdout, jsonPieces(report));
    for (const problem of report.problems) io.stderr.write(`forge: warning: ${problem.message}\n`);
  } else {
    io.stdout.write(renderText(report, styleFor(io.stdout, io.env), overview));
  }

  if ((overview === undefined ? report.runs.length : overview.runs + overview.compactions) === 0) {
    io.stderr.write(
      `forge: error: no run events in ${report.target.files.length === 0 ? `the traces of ${report.target.argument}` : report.target.files.join(', ')}\n`,
    );
    return ExitCode.failure;
  }
  return ExitCode.ok;
}
