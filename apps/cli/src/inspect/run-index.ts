import { writeFileAtomic } from '@forge/bounded-read';
import { assertSafeId } from '@forge/core';
import {
  forgeHomeLayout,
  PRIVATE_FILE_MODE,
  SESSION_LOG_FILE_NAME,
  storedCostSchema,
  type SessionRunIds,
} from '@forge/persistence';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { RunReport } from './report.js';

/**
 * What `forge inspect <session>` shows of a run in its list, and what the session's totals add
 * up: a few fields of the run's report, the same whether read from the trace or from the run index.
 */
export type RunLine = Pick<
  RunReport,
  'kind' | 'runId' | 'sessionId' | 'file' | 'status' | 'startedAt' | 'steps' | 'usage' | 'cacheHitRatio' | 'cost'
> & { readonly unpricedSteps: number };

export function runLineOf(run: RunReport): RunLine {
  return {
    kind: run.kind,
    runId: run.runId,
    ...(run.sessionId === undefined ? {} : { sessionId: run.sessionId }),
    file: run.file,
    status: run.status,
    ...(run.startedAt === undefined ? {} : { startedAt: run.startedAt }),
    steps: run.steps,
    usage: run.usage,
    ...(run.cacheHitRatio === undefined ? {} : { cacheHitRatio: run.cacheHitRatio }),
    ...(run.cost === undefined ? {} : { cost: run.cost }),
    unpricedSteps: run.unpricedSteps,
  };
}

/** The run index of a session: `sessions/<id>/runs.index.json`, beside its log. */
export const RUN_INDEX_FILE_NAME = 'runs.index.json';
const RUN_INDEX_VERSION = 1;
const MAX_RUN_INDEX_BYTES = 64 * 1024 * 1024;

const count = z.number().int().min(0);
const optionalCount = count.exactOptional();

const runLineSchema = z.object({
  kind: z.enum(['run', 'compaction']),
  runId: z.string(),
  sessionId: z.string().exactOptional(),
  file: z.string(),
  status: z.string(),
  startedAt: z.string().exactOptional(),
  steps: count,
  usage: z.object({
    inputTokens: optionalCount,
    cacheReadTokens: optionalCount,
    cacheWriteTokens: optionalCount,
    outputTokens: optionalCount,
    reasoningTokens: optionalCount,
  }),
  cacheHitRatio: z.number().exactOptional(),
  cost: storedCostSchema.exactOptional(),
  unpricedSteps: count,
});

const problemSchema = z.object({
  kind: z.enum(['torn_tail', 'malformed_line', 'missing_trace', 'newer_schema', 'unreadable_trace']),
  file: z.string(),
  line: count.exactOptional(),
  message: z.string(),
});

/** A file as a stat saw it: a different size or modification time means it must be read again. */
const fileStampSchema = z.object({ size: count, mtimeMs: z.number() });
type FileStamp = z.infer<typeof fileStampSchema>;

const traceEntrySchema = z.object({
  stamp: fileStampSchema,
  runs: z.array(runLineSchema),
  problems: z.array(problemSchema),
  problemsNotListed: count,
});

/** What reading one trace file gave: its runs' lines and the problems met. */
export type TraceEntry = z.infer<typeof traceEntrySchema>;

const runIndexSchema = z.object({
  v: z.literal(RUN_INDEX_VERSION),
  /** The session log when the run ids were read (they may cover more of it). */
  log: fileStampSchema,
  /** The run ids, and how far into the log they go, so that only records appended later need reading. */
  sessionRuns: z.object({ runIds: z.array(z.string()), logBytes: count, lastSuffix: z.string(), nextSeq: count }),
  traces: z.record(z.string(), traceEntrySchema),
});
type StoredRunIndex = z.infer<typeof runIndexSchema>;

function stampOf(file: string): FileStamp | undefined {
  const stats = statSync(file, { throwIfNoEntry: false });
  return stats?.isFile() === true ? { size: stats.size, mtimeMs: stats.mtimeMs } : undefined;
}

const sameStamp = (left: FileStamp | undefined, right: FileStamp | undefined) =>
  left !== undefined && right !== undefined && left.size === right.size && left.mtimeMs === right.mtimeMs;

function readStored(file: string): StoredRunIndex | undefined {
  try {
    const stamp = stampOf(file);
    if (stamp === undefined || stamp.size > MAX_RUN_INDEX_BYTES) return undefined;
    const parsed = runIndexSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A cache of what a session's traces say, so that `forge inspect <session>` reads one small file
 * and the trace of the run it shows, not every trace. Never trusted over what it caches: the run
 * ids count only while the session log has the size and modification time they were read at, and
 * a trace's lines only while the trace has its recorded size and modification time; anything else
 * is read again and the index rewritten. Losing it (or failing to write it) only costs time.
 */
export class RunIndex {
  private readonly stored: StoredRunIndex | undefined;
  private readonly traces = new Map<string, TraceEntry>();
  private logStamp: FileStamp | undefined;
  private sessionRuns: SessionRunIds | undefined;
  private fresh = false;
  private changed = false;

  private constructor(
    private readonly file: string | undefined,
    private readonly logFile: string | undefined,
  ) {
    this.stored = file === undefined ? undefined : readStored(file);
    this.logStamp = logFile === undefined ? undefined : stampOf(logFile);
    this.sessionRuns = this.stored?.sessionRuns;
    this.fresh = this.stored !== undefined && sameStamp(this.stored.log, this.logStamp);
  }

  /** The run index of a v2 session (a v1 session, without a directory of its own, gets one that keeps nothing). */
  static open(home: string, sessionId: string): RunIndex {
    const directory = join(forgeHomeLayout(home).sessions, assertSafeId(sessionId, 'session id'));
    const logFile = join(directory, SESSION_LOG_FILE_NAME);
    return stampOf(logFile) === undefined
      ? RunIndex.detached()
      : new RunIndex(join(directory, RUN_INDEX_FILE_NAME), logFile);
  }

  /** An index that reads every trace and keeps nothing. */
  static detached(): RunIndex {
    return new RunIndex(undefined, undefined);
  }

  /** The session's run ids, when the log has not changed since they were recorded. */
  knownRunIds(): readonly string[] | undefined {
    return this.fresh ? this.sessionRuns?.runIds : undefined;
  }

  /** Whether the session has a log of its own (v2) whose run ids this index keeps. */
  keepsRunIds(): boolean {
    return this.logFile !== undefined;
  }

  /** The run ids recorded last, with how far into the log they go (the log may have grown since). */
  recordedRunIds(): SessionRunIds | undefined {
    return this.sessionRuns;
  }

  /** Records the run ids read from the log (as it was when this index was opened, or later). */
  rememberRunIds(sessionRuns: SessionRunIds): void {
    this.sessionRuns = sessionRuns;
    this.fresh = true;
    this.changed = true;
  }

  /** The lines of a trace file, from the index when the file is as it was, else from `read` (and remembered). */
  async traceEntry(file: string, read: () => Promise<Omit<TraceEntry, 'stamp'>>): Promise<TraceEntry> {
    const stamp = stampOf(file);
    const cached = this.stored?.traces[file];
    if (cached !== undefined && sameStamp(cached.stamp, stamp)) {
      this.traces.set(file, cached);
      return cached;
    }
    const entry = { stamp: stamp ?? { size: 0, mtimeMs: 0 }, ...(await read()) };
    // A trace that changed while it was read is read again next time.
    if (sameStamp(stamp, stampOf(file))) {
      this.traces.set(file, entry);
      this.changed = true;
    }
    return entry;
  }

  /** Writes the index when anything was read afresh, keeping only the traces asked for this time. */
  async save(): Promise<void> {
    const dropped = this.stored !== undefined && Object.keys(this.stored.traces).length !== this.traces.size;
    if (this.file === undefined || this.logStamp === undefined || this.sessionRuns === undefined || !this.fresh) return;
    if (!this.changed && !dropped) return;
    const index: StoredRunIndex = {
      v: RUN_INDEX_VERSION,
      log: this.logStamp,
      sessionRuns: { ...this.sessionRuns, runIds: [...this.sessionRuns.runIds] },
      traces: Object.fromEntries(this.traces),
    };
    try {
      await writeFileAtomic(this.file, `${JSON.stringify(index)}\n`, { mode: PRIVATE_FILE_MODE, flush: false });
    } catch {
      // A cache that cannot be written is built again next time.
    }
  }
}
