import { truncateText } from '@forge/core/checkpoint';
import { readLines, readLinesBackward } from '@forge/bounded-read';
import { isSafeId, type Message } from '@forge/core';
import { readdir } from 'node:fs/promises';
import { forgeHomeLayout } from './home.js';
import { isErrorCode } from './private-fs.js';
import { decodeLine } from './record-codec.js';
import type { MessageRecord, SessionHeaderRecord } from './records.js';
import { SESSION_LOG_FILE_NAME, sessionPaths, type SessionPaths } from './session-files.js';
import { refreshSessionIndex, type SessionTotals } from './session-index.js';
import { stampOf, type FileStamp } from './json-cache.js';
import { SessionListing, type ListedSession } from './session-listing.js';
import { pointedLastSession } from './last-pointer.js';
import { openStoredFile, readStoredFile } from './stored-file.js';
import { parseV1Session } from './v1.js';

/** One line of `forge sessions list`. */
export interface SessionSummary {
  readonly id: string;
  readonly schemaVersion: 1 | 2;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly workspaceRoot: string | null;
  readonly messageCount: number;
  /** First line of the first user message, cut to 100 characters. */
  readonly firstUserLine: string | undefined;
  /**
   * Set when the session cannot be opened: `damaged: …` when a record is damaged (the other
   * fields come from the intact records around it), `unreadable: …` when not even its header can
   * be read (the other fields are then empty). Such a session is never chosen by `lastSession`.
   */
  readonly problem?: string;
  /** Running totals of the session's runs, from its index (absent for a v1 or damaged session). */
  readonly totals?: SessionTotals;
}

/** How far into a log to look for the first user message. */
const FIRST_MESSAGE_SCAN_BYTES = 8 * 1024 * 1024;
const SCAN_CHUNK_BYTES = 64 * 1024;
const FIRST_LINE_CHARS = 100;

function firstLine(message: Message | undefined): string | undefined {
  if (message?.role !== 'user') return undefined;
  const line = message.content.split('\n').find((text) => text.trim() !== '') ?? '';
  return truncateText(line, FIRST_LINE_CHARS);
}

/**
 * What a listing needs of a v2 session, from its index (`session-index.ts`), which is brought up to
 * date first: read as it is when the log did not change, extended over what was appended, rebuilt
 * when it does not describe the log. A log whose records fail their checks is summarized from its
 * front and end instead, with the damage as its `problem`.
 */
async function summarizeSession(id: string, paths: SessionPaths): Promise<SessionSummary> {
  return (await summarizeStamped(id, paths)).summary;
}

/** `summarizeSession`, with the stamp of the log its index describes (none for a damaged log). */
async function summarizeStamped(
  id: string,
  paths: SessionPaths,
): Promise<{ readonly summary: SessionSummary; readonly stamp?: FileStamp }> {
  const outcome = await refreshSessionIndex(paths.logFile, paths.indexFile);
  if ('index' in outcome) {
    const { index } = outcome;
    const summary: SessionSummary = {
      id,
      schemaVersion: 2,
      createdAt: index.createdAt,
      updatedAt: index.updatedAt,
      workspaceRoot: index.workspaceRoot,
      messageCount: index.messageCount,
      firstUserLine: index.firstUserLine,
      totals: index.totals,
    };
    return { summary, stamp: { size: index.logBytes, mtimeMs: index.logMtimeMs } };
  }
  const { damage } = outcome;
  const where = damage.line === undefined ? `byte ${damage.offset}` : `line ${damage.line}`;
  return { summary: { ...(await summarizeLog(id, paths.logFile)), problem: `damaged: ${where}: ${damage.problem}` } };
}

/** Reads what a listing needs from a v2 log: the header and first user message from the front, the last records from the back. */
async function summarizeLog(id: string, logFile: string): Promise<SessionSummary> {
  let header: SessionHeaderRecord | undefined;
  let firstUser: MessageRecord | undefined;
  let updatedAt: string | undefined;
  let messageCount = 0;
  const handle = await openStoredFile(logFile);
  try {
    front: for await (const batch of readLines(handle, {
      maxLineBytes: FIRST_MESSAGE_SCAN_BYTES,
      chunkBytes: SCAN_CHUNK_BYTES,
    })) {
      for (const line of batch) {
        if (line.offset >= FIRST_MESSAGE_SCAN_BYTES) break front;
        const decoded = line.kind === 'line' ? decodeLine(line.bytes) : undefined;
        if (decoded?.kind !== 'record') break front;
        if (decoded.record.type === 'session') header = decoded.record;
        if (decoded.record.type === 'message' && decoded.record.message.role === 'user') firstUser = decoded.record;
        if (header === undefined || firstUser !== undefined) break front;
      }
    }
    if (header === undefined) throw new Error(`${logFile} has no readable session header`);

    for await (const line of readLinesBackward(handle, { chunkBytes: SCAN_CHUNK_BYTES })) {
      const decoded = decodeLine(line.bytes);
      if (decoded.kind !== 'record') continue;
      updatedAt ??= decoded.record.at;
      if (decoded.record.type === 'message') messageCount = decoded.record.index + 1;
      if (decoded.record.type === 'message' || decoded.record.type === 'session') break;
    }
  } finally {
    await handle.close();
  }
  return {
    id,
    schemaVersion: 2,
    createdAt: header.createdAt,
    updatedAt: updatedAt ?? header.at,
    workspaceRoot: header.workspaceRoot,
    messageCount,
    firstUserLine: firstLine(firstUser?.message),
  };
}

async function summarizeV1(id: string, file: string): Promise<SessionSummary> {
  const session = parseV1Session((await readStoredFile(file)).toString('utf8'), { file, sessionId: id });
  const firstUser = session.messages.find((message) => message.role === 'user');
  return {
    id,
    schemaVersion: 1,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
    workspaceRoot: null,
    messageCount: session.messages.length,
    firstUserLine: firstLine(firstUser === undefined ? undefined : { role: 'user', content: firstUser.content }),
  };
}

/** The ids of every stored session by schema (names only: no file is read). */
async function storedIds(home: string): Promise<{ readonly v2: readonly string[]; readonly v1: readonly string[] }> {
  const layout = forgeHomeLayout(home);
  let entries;
  try {
    entries = await readdir(layout.sessions, { withFileTypes: true });
  } catch (error) {
    if (isErrorCode(error, 'ENOENT')) return { v2: [], v1: [] };
    throw error;
  }
  const directories = new Set(
    entries.filter((entry) => entry.isDirectory() && isSafeId(entry.name)).map((entry) => entry.name),
  );
  const v1 = entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.json'))
    .map((entry) => entry.name.slice(0, -'.json'.length))
    .filter((id) => isSafeId(id) && !directories.has(id));
  return { v2: [...directories], v1 };
}

/** The ids of every session in FORGE_HOME, sorted; cheap (one directory listing, no file read). */
export async function sessionIds(home: string): Promise<string[]> {
  const { v2, v1 } = await storedIds(home);
  return [...v2, ...v1].sort();
}

/** How many sessions a listing reads at once: enough to overlap the waits, few enough not to hold a descriptor per session. */
const LISTING_CONCURRENCY = 8;

/** `work` applied to every item, at most `limit` at a time, results in the items' order. */
async function mapWithLimit<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

function listedSummary(id: string, listed: ListedSession): SessionSummary {
  return {
    id,
    schemaVersion: listed.schemaVersion,
    createdAt: listed.createdAt,
    updatedAt: listed.updatedAt,
    workspaceRoot: listed.workspaceRoot,
    messageCount: listed.messageCount,
    firstUserLine: listed.firstUserLine,
    ...(listed.totals === undefined ? {} : { totals: listed.totals }),
  };
}

function listedLine(summary: SessionSummary): Omit<ListedSession, 'size' | 'mtimeMs'> {
  const { schemaVersion, createdAt, updatedAt, workspaceRoot, messageCount, firstUserLine, totals } = summary;
  return {
    schemaVersion,
    createdAt,
    updatedAt,
    workspaceRoot,
    messageCount,
    ...(firstUserLine === undefined ? {} : { firstUserLine }),
    ...(totals === undefined ? {} : { totals }),
  };
}

/**
 * A session in a listing, with what orders and filters it; its whole summary is made (or checked,
 * for a line of the listing) only for the sessions shown.
 */
interface Candidate {
  readonly id: string;
  readonly updatedAt: string;
  readonly workspaceRoot: string | null;
  readonly messageCount: number;
  readonly problem?: string;
  readonly summary: () => Promise<SessionSummary>;
}

const newestFirst = (left: Candidate, right: Candidate) =>
  left.updatedAt < right.updatedAt ? 1 : left.updatedAt > right.updatedAt ? -1 : left.id.localeCompare(right.id);

/**
 * Every session, newest first: from the listing (`session-listing.ts`) for each session whose log
 * is as it was when its line was made, else from its index (or v1 file), remembered for next time.
 * `listing.save()` keeps what was learnt once the summaries needed were made.
 */
async function candidatesOf(
  home: string,
): Promise<{ readonly candidates: Candidate[]; readonly listing: SessionListing }> {
  const layout = forgeHomeLayout(home);
  const ids = await storedIds(home);
  const listing = SessionListing.read(layout.sessions);
  const remembered = (id: string, summarized: { readonly summary: SessionSummary; readonly stamp?: FileStamp }) => {
    if (summarized.stamp !== undefined && summarized.summary.problem === undefined)
      listing.remember(id, summarized.stamp, listedLine(summarized.summary));
    return summarized.summary;
  };
  const v2 = (id: string) =>
    withProblem(id, 2, async () => remembered(id, await summarizeStamped(id, sessionPaths(layout, id))));
  const v1 = (id: string, file: string) =>
    withProblem(id, 1, async () => {
      const stamp = stampOf(file);
      return remembered(id, { summary: await summarizeV1(id, file), ...(stamp === undefined ? {} : { stamp }) });
    });
  const candidates: Candidate[] = [];
  const tasks: (() => Promise<SessionSummary>)[] = [];
  const fromListing = (id: string, file: string, summarize: () => Promise<SessionSummary>) => {
    const head = listing.fresh(id, file);
    if (head === undefined) return tasks.push(summarize);
    const summary = async () => {
      const line = listing.line(id);
      return line === undefined ? summarize() : listedSummary(id, line);
    };
    candidates.push({
      id,
      updatedAt: head.updatedAt,
      workspaceRoot: head.workspaceRoot,
      messageCount: head.messageCount,
      summary,
    });
  };
  // Joined by hand: thousands of sessions make `sessionPaths` (five paths each) a visible part of a listing.
  for (const id of ids.v2) fromListing(id, `${layout.sessions}/${id}/${SESSION_LOG_FILE_NAME}`, () => v2(id));
  for (const id of ids.v1) {
    const file = sessionPaths(layout, id).v1File;
    fromListing(id, file, () => v1(id, file));
  }
  for (const summary of await mapWithLimit(tasks, LISTING_CONCURRENCY, (task) => task()))
    candidates.push({ ...summary, summary: () => Promise.resolve(summary) });
  return { candidates: candidates.sort(newestFirst), listing };
}

/** Which sessions a listing shows. */
export interface ListSessionsOptions {
  /** Only sessions of this workspace. */
  readonly workspaceRoot?: string;
  /** At most this many, the newest (default: all). */
  readonly limit?: number;
}

/**
 * Sessions in FORGE_HOME, most recently updated first, each read from its small index (see
 * `summarizeSession`): a listing costs a few small reads per session, not its log. A session that
 * cannot be read is listed with a `problem` instead of failing the whole listing.
 */
export async function listSessions(home: string, options: ListSessionsOptions = {}): Promise<SessionSummary[]> {
  const { candidates, listing } = await candidatesOf(home);
  const kept =
    options.workspaceRoot === undefined
      ? candidates
      : candidates.filter((session) => session.workspaceRoot === options.workspaceRoot);
  const shown = await Promise.all(
    (options.limit === undefined ? kept : kept.slice(0, options.limit)).map((session) => session.summary()),
  );
  await listing.save();
  return shown;
}

async function withProblem(
  id: string,
  schemaVersion: 1 | 2,
  summarize: () => Promise<SessionSummary>,
): Promise<SessionSummary> {
  try {
    return await summarize();
  } catch (error) {
    return {
      id,
      schemaVersion,
      createdAt: '',
      updatedAt: '',
      workspaceRoot: null,
      messageCount: 0,
      firstUserLine: undefined,
      problem: `unreadable: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

/** Which sessions `lastSession` may choose. */
export interface LastSessionFilter {
  /** Only sessions of this workspace. */
  readonly workspaceRoot?: string;
  /** Only sessions holding at least one message. */
  readonly withMessages?: boolean;
}

/**
 * The most recently updated session that passes `filter`, from the sessions' indexes, whether or
 * not it is damaged. For a workspace's newest session with messages (`--last`), the session the
 * last writer of that workspace named (`last-pointer.ts`) is read alone, and the others only when
 * that hint is missing or no longer fits: a damaged one comes with its `problem` (the caller says so rather than
 * silently resuming an older session). An unreadable session (no header) is never chosen.
 */
export async function lastSession(home: string, filter: LastSessionFilter = {}): Promise<SessionSummary | undefined> {
  const chosen = (session: Pick<SessionSummary, 'problem' | 'workspaceRoot' | 'messageCount'>) =>
    !(session.problem?.startsWith('unreadable') ?? false) &&
    (filter.workspaceRoot === undefined || session.workspaceRoot === filter.workspaceRoot) &&
    (filter.withMessages !== true || session.messageCount > 0 || session.problem !== undefined);
  if (filter.workspaceRoot !== undefined && filter.withMessages === true) {
    const layout = forgeHomeLayout(home);
    const hinted = await pointedLastSession(layout.sessions, filter.workspaceRoot);
    if (hinted !== undefined && isSafeId(hinted)) {
      const summary = await withProblem(hinted, 2, () => summarizeSession(hinted, sessionPaths(layout, hinted)));
      if (chosen(summary)) return summary;
    }
  }
  const { candidates, listing } = await candidatesOf(home);
  const found = await candidates.find(chosen)?.summary();
  await listing.save();
  return found;
}
