import { truncateText } from '@forge/core/checkpoint';
import { addCost, type CostBreakdown } from '@forge/core/pricing';
import { readLines } from '@forge/bounded-read';
import type { Message } from '@forge/core';
import { statSync, type Stats } from 'node:fs';
import { z } from 'zod';
import { CorruptFileError } from './errors.js';
import { readJsonCache, writeJsonCache } from './json-cache.js';
import { CRC_SUFFIX_LENGTH, decodeLine } from './record-codec.js';
import { storedCostSchema, type SessionRecord } from './records.js';
import { openStoredFile } from './stored-file.js';

const INDEX_VERSION = 2;
const FIRST_LINE_CHARS = 100;
const MAX_INDEX_BYTES = 64 * 1024;

const count = z.number().int().min(0);

/** A session's running totals, as its index keeps them (and the listing copies them). */
export const totalsSchema = z.object({
  /** Runs that recorded their end. */
  runs: count,
  inputTokens: count,
  cachedTokens: count,
  outputTokens: count,
  /** Sum of the runs' recorded costs; absent while no run was priced. */
  cost: storedCostSchema.optional(),
  unpricedSteps: count,
  /** Runs ended by a Forge that did not record costs: their cost is only in their traces. */
  legacyRuns: count,
});

/** A place in the log a reader can start at: a record's line, its number, and the transcript's length before it. */
const logPlaceSchema = z.object({ offset: count, seq: count, messageIndex: count });
export type LogPlace = z.infer<typeof logPlaceSchema>;

const indexSchema = z.object({
  v: z.literal(INDEX_VERSION),
  /** Bytes of the log this index describes: its intact records, each with its newline. */
  logBytes: count,
  /** The log's modification time when the index was made: a log rewritten in place is read again whole. */
  logMtimeMs: z.number(),
  /** The checksum suffix of the last record described, to tell a log that was replaced or cut from one that grew. */
  lastSuffix: z.string(),
  nextSeq: count,
  id: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  workspaceRoot: z.string().nullable(),
  messageCount: count,
  /** User messages with some text: the requests a recap counts. */
  userRequests: count,
  firstUserLine: z.string().optional(),
  totals: totalsSchema,
  /** When the latest run that recorded its end ended. */
  lastRunEndedAt: z.string().optional(),
  /** The model the latest run that named one started on. */
  lastModel: z.object({ provider: z.string(), modelId: z.string() }).optional(),
  /** Runs with a start and no end yet, where their start records are. */
  openRuns: z.array(logPlaceSchema.extend({ runId: z.string() })),
  /**
   * Where the current checkpoint's record is in the log (bytes, newline included), and `window`:
   * where a resume in mode `compact` starts reading — the first message the checkpoint keeps
   * verbatim, or the start of a run still going when it was written, whichever comes first.
   * Absent when that place is not known (the index was extended past it): resume reads everything.
   */
  checkpoint: z.object({ offset: count, end: count, seq: count, window: logPlaceSchema.optional() }).optional(),
});

/** What the index of a session holds. Derived from the log, rebuilt from it when missing or stale, never trusted over it. */
export type SessionIndex = z.infer<typeof indexSchema>;
export type SessionTotals = z.infer<typeof totalsSchema>;

const EMPTY_TOTALS: SessionTotals = {
  runs: 0,
  inputTokens: 0,
  cachedTokens: 0,
  outputTokens: 0,
  unpricedSteps: 0,
  legacyRuns: 0,
};

function firstLine(message: Message): string | undefined {
  if (message.role !== 'user') return undefined;
  const line = message.content.split('\n').find((text) => text.trim() !== '') ?? '';
  return truncateText(line, FIRST_LINE_CHARS);
}

/** A user message with some text: what a recap of a conversation counts as a request. */
export function isRequest(message: Message): boolean {
  return message.role === 'user' && message.content.trim() !== '';
}

function addTotals(totals: SessionTotals, record: Extract<SessionRecord, { type: 'run.ended' }>): SessionTotals {
  const cost: CostBreakdown | undefined =
    record.cost === undefined
      ? totals.cost
      : totals.cost === undefined
        ? record.cost
        : addCost(totals.cost, record.cost);
  return {
    runs: totals.runs + 1,
    inputTokens: totals.inputTokens + (record.usage.inputTokens ?? 0),
    cachedTokens: totals.cachedTokens + (record.usage.cacheReadTokens ?? 0),
    outputTokens: totals.outputTokens + (record.usage.outputTokens ?? 0),
    ...(cost === undefined ? {} : { cost }),
    unpricedSteps: totals.unpricedSteps + (record.unpricedSteps ?? 0),
    legacyRuns: totals.legacyRuns + (record.priced === undefined ? 1 : 0),
  };
}

/** Folds records, in log order, into an index (the log's own checks — checksum, schema, numbering — come first). */
export class SessionIndexBuilder {
  private index: SessionIndex | undefined;
  /** Where each message record seen by this builder starts (messages from `first` on), to place a checkpoint's window. */
  private messagePlaces: { first: number; offsets: number[]; seqs: number[] };
  /** Where each run seen starting by this builder starts; `complete` when the builder read the log from its header. */
  private runStarts: { complete: boolean; places: LogPlace[] };

  constructor(from?: SessionIndex) {
    this.index = from;
    this.messagePlaces = { first: from?.messageCount ?? 0, offsets: [], seqs: [] };
    this.runStarts = { complete: from === undefined, places: [] };
  }

  get current(): SessionIndex | undefined {
    return this.index;
  }

  /** Takes one intact record whose line spans `[offset, end)`, and the line's last bytes (its checksum suffix). */
  apply(record: SessionRecord, offset: number, end: number, suffix: string): void {
    if (record.type === 'session') {
      this.index = {
        v: INDEX_VERSION,
        logBytes: end,
        logMtimeMs: 0,
        lastSuffix: suffix,
        nextSeq: record.seq + 1,
        id: record.id,
        createdAt: record.createdAt,
        updatedAt: record.at,
        workspaceRoot: record.workspaceRoot,
        messageCount: 0,
        userRequests: 0,
        totals: EMPTY_TOTALS,
        openRuns: [],
      };
      this.messagePlaces = { first: 0, offsets: [], seqs: [] };
      this.runStarts = { complete: true, places: [] };
      return;
    }
    const index = this.index;
    if (index === undefined) return;
    const next: { -readonly [Key in keyof SessionIndex]: SessionIndex[Key] } = {
      ...index,
      logBytes: end,
      lastSuffix: suffix,
      nextSeq: record.seq + 1,
      updatedAt: record.at,
    };
    if (record.type === 'message') {
      next.messageCount = record.index + 1;
      if (isRequest(record.message)) next.userRequests = index.userRequests + 1;
      const line = index.firstUserLine === undefined ? firstLine(record.message) : undefined;
      if (line !== undefined) next.firstUserLine = line;
      this.messagePlaces.offsets.push(offset);
      this.messagePlaces.seqs.push(record.seq);
    }
    if (record.type === 'run.started')
      this.runStarts.places.push({ offset, seq: record.seq, messageIndex: index.messageCount });
    if (record.type === 'run.started' && record.model !== undefined)
      next.lastModel = { provider: record.model.provider, modelId: record.model.modelId };
    if (record.type === 'run.started')
      next.openRuns = [
        ...index.openRuns.filter((run) => run.runId !== record.runId),
        { runId: record.runId, offset, seq: record.seq, messageIndex: index.messageCount },
      ];
    if (record.type === 'run.ended') {
      next.totals = addTotals(index.totals, record);
      next.lastRunEndedAt = record.at;
      next.openRuns = index.openRuns.filter((run) => run.runId !== record.runId);
    }
    if (record.type === 'checkpoint') {
      const window = this.windowOf(record.source.tailStart, {
        offset,
        seq: record.seq,
        messageIndex: index.messageCount,
      });
      next.checkpoint = { offset, end, seq: record.seq, ...(window === undefined ? {} : { window }) };
    }
    this.index = next;
  }

  /**
   * Where a resume from a checkpoint keeping messages from `tailStart` on starts reading (see
   * `checkpoint.window`): the first kept message, or the start of the run that added it (so the
   * runs of every message read are known from their start), or of a run still going.
   */
  private windowOf(tailStart: number, atCheckpoint: LogPlace): LogPlace | undefined {
    const index = this.index;
    if (index === undefined) return undefined;
    let place: LogPlace = atCheckpoint;
    if (tailStart < atCheckpoint.messageIndex) {
      const { first, offsets, seqs } = this.messagePlaces;
      const at = tailStart - first;
      const offset = offsets[at];
      const seq = seqs[at];
      if (at < 0 || offset === undefined || seq === undefined) return undefined;
      place = { offset, seq, messageIndex: tailStart };
      const owner = this.runStarts.places.findLast((run) => run.messageIndex <= tailStart);
      if (owner === undefined && !this.runStarts.complete) return undefined;
      if (owner !== undefined && owner.offset < place.offset) place = owner;
    }
    for (const run of index.openRuns)
      if (run.offset < place.offset) place = { offset: run.offset, seq: run.seq, messageIndex: run.messageIndex };
    return place;
  }
}

/** The checksum suffix of a line (without its newline), as the index keeps it. */
export function suffixOf(line: Uint8Array): string {
  return Buffer.from(line.subarray(Math.max(0, line.length - CRC_SUFFIX_LENGTH))).toString('latin1');
}

/** Whether the log still holds, at the place the index says its last record ends, that record's checksum. */
export async function stillDescribes(
  logFile: string,
  index: Pick<SessionIndex, 'logBytes' | 'lastSuffix'>,
  size: number,
): Promise<boolean> {
  if (index.logBytes > size || index.logBytes < CRC_SUFFIX_LENGTH + 1) return false;
  const handle = await openStoredFile(logFile);
  try {
    const tail = Buffer.alloc(CRC_SUFFIX_LENGTH + 1);
    await handle.read(tail, 0, tail.length, index.logBytes - tail.length);
    return tail.subarray(0, CRC_SUFFIX_LENGTH).toString('latin1') === index.lastSuffix && tail.at(-1) === 0x0a;
  } finally {
    await handle.close();
  }
}

/** Where a log fails its checks: a 1-based line when the scan started at the top, else the byte offset. */
export interface IndexDamage {
  readonly line?: number;
  readonly offset: number;
  readonly problem: string;
}

/**
 * Reads the records of a log from `from` on (a record boundary) into `builder`, with the log's own
 * checks (checksum, schema, numbering); returns the first damage found. A torn tail (no newline)
 * ends the scan: it is not damage.
 */
async function scan(logFile: string, from: number, builder: SessionIndexBuilder): Promise<IndexDamage | undefined> {
  const handle = await openStoredFile(logFile);
  try {
    for await (const batch of readLines(handle, {
      maxLineBytes: Number.POSITIVE_INFINITY,
      chunkBytes: 1024 * 1024,
      start: from,
    })) {
      for (const line of batch) {
        if (line.kind !== 'line' || !line.terminated) return undefined;
        const decoded = decodeLine(line.bytes);
        const expected = builder.current?.nextSeq ?? 0;
        if (decoded.kind !== 'record')
          return { ...(from === 0 ? { line: line.number } : {}), offset: line.offset, problem: decoded.problem };
        if (decoded.record.seq !== expected)
          return {
            ...(from === 0 ? { line: line.number } : {}),
            offset: line.offset,
            problem: `expected record number ${expected}, found ${decoded.record.seq}`,
          };
        builder.apply(decoded.record, line.offset, line.offset + line.bytes.length + 1, suffixOf(line.bytes));
      }
    }
    return undefined;
  } finally {
    await handle.close();
  }
}

/**
 * Writes an index beside the log. It is a cache of what the log says, so it is replaced atomically
 * without a flush: a crash may lose it, and the next reader rebuilds it from the log. A failure to
 * write (a read-only home) is ignored for the same reason.
 */
export async function writeSessionIndex(indexFile: string, index: SessionIndex): Promise<void> {
  await writeJsonCache(indexFile, index);
}

/** A session's index, or where its log is damaged. */
export type IndexOutcome = { readonly index: SessionIndex } | { readonly damage: IndexDamage };

/**
 * The index of a session log, brought up to date: read as it is when the log has not changed
 * (same size, same modification time, same last record), extended by reading only the records
 * appended since, or rebuilt from the whole log when it is missing, unreadable or does not
 * describe the log (cut, replaced, rewritten in place). It describes exactly the log's intact
 * records, or the outcome is the first damage its reads met. Throws the usual `ENOENT` when there
 * is no log.
 */
export async function refreshSessionIndex(logFile: string, indexFile: string): Promise<IndexOutcome> {
  // One stat of the log and one synchronous read of the index: the common case of a listing of
  // thousands of sessions, where the cost of an asynchronous call per step would dominate.
  const stored = readJsonCache(indexFile, indexSchema, MAX_INDEX_BYTES);
  const stats = await logStats(logFile);
  const size = stats.size;
  // Same size and modification time: an append-only log that nothing touched since (the index was made of it).
  if (stored !== undefined && stored.logBytes === size && stored.logMtimeMs === stats.mtimeMs && size > 0)
    return { index: stored };
  const describes = stored !== undefined && (await stillDescribes(logFile, stored, size));
  const extend = describes && stored.logBytes < size;
  let builder = new SessionIndexBuilder(extend ? stored : undefined);
  let damage = await scan(logFile, extend ? stored.logBytes : 0, builder);
  // A checkpoint appended since keeps messages from before the records read: its window is found by reading the whole log.
  const placed = builder.current?.checkpoint;
  if (
    damage === undefined &&
    extend &&
    placed !== undefined &&
    placed.window === undefined &&
    placed.offset >= stored.logBytes
  ) {
    builder = new SessionIndexBuilder();
    damage = await scan(logFile, 0, builder);
  }
  if (damage !== undefined) return { damage };
  const built = builder.current;
  if (built === undefined) return { damage: { line: 1, offset: 0, problem: 'the log has no complete session header' } };
  const index = { ...built, logMtimeMs: built.logBytes === size ? stats.mtimeMs : 0 };
  await writeSessionIndex(indexFile, index);
  return { index };
}

/** The log's size and time, from a stat of the path: a missing log throws the usual `ENOENT`, anything but a regular file `CorruptFileError`. */
async function logStats(logFile: string): Promise<Stats> {
  const stats = statSync(logFile);
  if (!stats.isFile()) {
    const handle = await openStoredFile(logFile);
    await handle.close();
  }
  return stats;
}

/** `refreshSessionIndex`, with damage thrown as `CorruptFileError` naming the file and line (or byte). */
export async function sessionIndex(logFile: string, indexFile: string): Promise<SessionIndex> {
  const outcome = await refreshSessionIndex(logFile, indexFile);
  if ('index' in outcome) return outcome.index;
  const { damage } = outcome;
  throw new CorruptFileError({
    file: logFile,
    ...(damage.line === undefined ? {} : { line: damage.line }),
    problem: damage.line === undefined ? `the record at byte ${damage.offset}: ${damage.problem}` : damage.problem,
  });
}
