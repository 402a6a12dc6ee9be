import { truncateText } from '@forge/core/checkpoint';
import { readLines, readLinesBackward } from '@forge/bounded-read';
import { isSafeId, type Message } from '@forge/core';
import { readdir } from 'node:fs/promises';
import { forgeHomeLayout } from './home.js';
import { findLogDamage } from './log-integrity.js';
import { isErrorCode } from './private-fs.js';
import { decodeLine } from './record-codec.js';
import type { MessageRecord, SessionHeaderRecord } from './records.js';
import { sessionPaths } from './session-files.js';
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
 * Reads what a listing needs from a v2 log: the header and first user message from the front, the
 * last records from the back, and, when `checkIntegrity`, every line's checksum and number.
 */
async function summarizeLog(id: string, logFile: string, checkIntegrity: boolean): Promise<SessionSummary> {
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
  const damage = checkIntegrity ? await findLogDamage(logFile) : undefined;
  return {
    id,
    schemaVersion: 2,
    createdAt: header.createdAt,
    updatedAt: updatedAt ?? header.at,
    workspaceRoot: header.workspaceRoot,
    messageCount,
    firstUserLine: firstLine(firstUser?.message),
    ...(damage === undefined ? {} : { problem: `damaged: line ${damage.line}: ${damage.problem}` }),
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

async function summarizeAll(home: string, checkIntegrity: boolean): Promise<SessionSummary[]> {
  const layout = forgeHomeLayout(home);
  const ids = await storedIds(home);
  const tasks = [
    ...ids.v2.map(
      (id) => () => withProblem(id, 2, () => summarizeLog(id, sessionPaths(layout, id).logFile, checkIntegrity)),
    ),
    ...ids.v1.map((id) => () => withProblem(id, 1, () => summarizeV1(id, sessionPaths(layout, id).v1File))),
  ];
  const summaries = await mapWithLimit(tasks, LISTING_CONCURRENCY, (task) => task());
  return summaries.sort((left, right) =>
    left.updatedAt < right.updatedAt ? 1 : left.updatedAt > right.updatedAt ? -1 : left.id.localeCompare(right.id),
  );
}

/**
 * Every session in FORGE_HOME, most recently updated first. Parses only the start and end of each
 * log, but checks the checksum and numbering of every other line (without parsing it) so a
 * damaged session is never listed as healthy: the listing reads every byte of every log, a few
 * sessions at a time. A session that cannot be read is listed with a `problem` instead of failing
 * the whole listing. To pick one session, `lastSession` is much cheaper.
 */
export async function listSessions(home: string): Promise<SessionSummary[]> {
  return summarizeAll(home, true);
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

/** Whether every line of a log passes the listing's checks; a log that can no longer be read does not (as listed, it has a `problem`). */
async function isIntact(logFile: string): Promise<boolean> {
  try {
    return (await findLogDamage(logFile)) === undefined;
  } catch {
    return false;
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
 * The most recently updated undamaged session that passes `filter`. Reads only the start and end
 * of each log, then checks every line of the newest candidate alone, moving on to the next when
 * it is damaged, so it reads whole just the log it returns (and any damaged newer ones).
 */
export async function lastSession(home: string, filter: LastSessionFilter = {}): Promise<SessionSummary | undefined> {
  const layout = forgeHomeLayout(home);
  const candidates = (await summarizeAll(home, false)).filter(
    (session) =>
      session.problem === undefined &&
      (filter.workspaceRoot === undefined || session.workspaceRoot === filter.workspaceRoot) &&
      (filter.withMessages !== true || session.messageCount > 0),
  );
  for (const candidate of candidates) {
    if (candidate.schemaVersion === 1 || (await isIntact(sessionPaths(layout, candidate.id).logFile))) return candidate;
  }
  return undefined;
}
