import { lineText, type Line } from '@forge/bounded-read';
import { EVENT_SCHEMA_VERSION } from '@forge/core';
import { readStoredLines } from '@forge/persistence';
import { BoundedList } from './bounded-list.js';
import type { RunReport, TraceProblem } from './report.js';
import { RunAggregator } from './run-aggregator.js';
import { parseEnvelope, type ParsedEnvelope } from './trace-schemas.js';

const LISTED_PROBLEMS = 50;

/** Problems found while reading, the first few listed and the rest counted. */
export class ProblemLog {
  private readonly list = new BoundedList<TraceProblem>(LISTED_PROBLEMS);

  add(problem: TraceProblem): void {
    this.list.push(problem);
  }

  get problems(): readonly TraceProblem[] {
    return this.list.items;
  }

  get notListed(): number {
    return this.list.notListed;
  }
}

type Parsed =
  | { readonly ok: true; readonly line: ParsedEnvelope }
  | { readonly ok: false; readonly problem: string; readonly newerSchema?: number };

function parseLine(text: string): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, problem: `not valid JSON (${error instanceof Error ? error.message : String(error)})` };
  }
  const version =
    typeof value === 'object' && value !== null
      ? (value as { readonly schemaVersion?: unknown }).schemaVersion
      : undefined;
  if (typeof version === 'number' && version > EVENT_SCHEMA_VERSION)
    return { ok: false, problem: 'newer schema', newerSchema: version };
  const parsed = parseEnvelope(value);
  if (parsed.success) return { ok: true, line: parsed.data };
  const issue = parsed.error.issues[0];
  const path = issue?.path.map(String) ?? [];
  const message = issue?.message ?? 'unexpected shape';
  if (path[0] === 'event' && path.length > 1) {
    const type = (value as { readonly event: { readonly type: string } }).event.type;
    return { ok: false, problem: `a ${type} event with an unexpected shape (${path.slice(1).join('.')}: ${message})` };
  }
  return { ok: false, problem: `not an event envelope${path.length === 0 ? '' : ` at ${path.join('.')}`}: ${message}` };
}

function describeOversized(line: Extract<Line, { kind: 'oversized' }>): string {
  return `the line is ${(line.byteLength / (1024 * 1024)).toFixed(1)} MiB long, longer than any event`;
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

  const damaged = (line: Line, problem: string) => {
    // Only a last line without its newline can be a write cut short; anything else was written whole.
    if (!line.terminated) deferred = { line: line.number, problem };
    else
      problems.add({
        kind: 'malformed_line',
        file,
        line: line.number,
        message: `Line ${line.number} of ${file}: ${problem}; skipped.`,
      });
  };

  const take = (line: Line) => {
    if (line.kind === 'oversized') return damaged(line, describeOversized(line));
    const text = lineText(line.bytes);
    if (text.trim() === '') return damaged(line, 'the line is blank');
    const parsed = parseLine(text);
    if (!parsed.ok) {
      if (parsed.newerSchema === undefined) {
        damaged(line, parsed.problem);
      } else {
        newerSchemaLines += 1;
        newerSchema = Math.max(newerSchema, parsed.newerSchema);
      }
      return;
    }
    const { envelope } = parsed.line;
    let run = runs.get(envelope.runId);
    if (run === undefined) {
      run = new RunAggregator({ file, runId: envelope.runId });
      runs.set(envelope.runId, run);
    }
    run.add(parsed.line);
  };

  try {
    for await (const lines of readStoredLines(file)) for (const line of lines) take(line);
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
