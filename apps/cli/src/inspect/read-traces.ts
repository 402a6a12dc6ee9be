import { EVENT_SCHEMA_VERSION } from '@forge/core';
import { readTraceLines, type TraceLine } from '@forge/persistence';
import { BoundedList } from './bounded-list.js';
import type { RunReport, TraceProblem } from './report.js';
import { RunAggregator } from './run-aggregator.js';
import { parseEnvelope, type ParsedEnvelope } from './report-events.js';

const LISTED_PROBLEMS = 50;

/** Problems found while reading, the first few listed and the rest counted. */
export class ProblemLog {
  private readonly list = new BoundedList<TraceProblem>(LISTED_PROBLEMS);
  private unlisted = 0;

  add(problem: TraceProblem): void {
    this.list.push(problem);
  }

  /** Counts problems another log met but did not list (the run index keeps a trace's count, not its problems). */
  countNotListed(count: number): void {
    this.unlisted += count;
  }

  get problems(): readonly TraceProblem[] {
    return this.list.items;
  }

  get notListed(): number {
    return this.list.notListed + this.unlisted;
  }
}

/**
 * Streams one trace file into per-run reports (a trace normally holds one run; lines of other
 * runs get reports of their own). Damaged lines — blank ones included, the writer never writes
 * one — are logged with their number and skipped; only a damaged last line with no newline after
 * it is reported as torn (the run died mid-write or is still going).
 */
export async function readTraceFile(file: string, problems: ProblemLog): Promise<RunReport[]> {
  const runs = new Map<string, RunAggregator>();
  let deferred: { line: number; problem: string } | undefined;
  let newerSchemaLines = 0;
  let newerSchema = 0;

  const damaged = (line: Extract<TraceLine<ParsedEnvelope>, { kind: 'damaged' }>) => {
    // Only a last line without its newline can be a write cut short; anything else was written whole.
    if (!line.terminated) deferred = { line: line.line, problem: line.problem };
    else
      problems.add({
        kind: 'malformed_line',
        file,
        line: line.line,
        message: `Line ${line.line} of ${file}: ${line.problem}; skipped.`,
      });
  };

  const take = (line: TraceLine<ParsedEnvelope>) => {
    if (line.kind === 'damaged') return damaged(line);
    if (line.kind === 'newer_schema') {
      newerSchemaLines += 1;
      newerSchema = Math.max(newerSchema, line.version);
      return;
    }
    const { envelope } = line.envelope;
    let run = runs.get(envelope.runId);
    if (run === undefined) {
      run = new RunAggregator({ file, runId: envelope.runId });
      runs.set(envelope.runId, run);
    }
    run.add(line.envelope);
  };

  try {
    for await (const lines of readTraceLines(file, parseEnvelope)) for (const line of lines) take(line);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    problems.add({
      kind: 'unreadable_trace',
      file,
      message: `Could not read ${file} to the end (${reason}); the report covers the lines before.`,
    });
  }
  if (deferred !== undefined) {
    problems.add({
      kind: 'torn_tail',
      file,
      line: deferred.line,
      message: `Ignored an incomplete last line ${deferred.line} of ${file} (${deferred.problem}): the run was still writing it, or its process died.`,
    });
  }
  if (newerSchemaLines > 0) {
    problems.add({
      kind: 'newer_schema',
      file,
      message: `${newerSchemaLines} line(s) of ${file} use event schema ${newerSchema}, newer than this Forge reads (${EVENT_SCHEMA_VERSION}); they were skipped. Upgrade Forge to see them.`,
    });
  }
  return [...runs.values()].map((run) => run.report());
}
