import { isSafeId, type Message } from '@forge/core';
import { readdir } from 'node:fs/promises';
import { forgeHomeLayout } from './home.js';
import { scanLinesBackward, scanLinesForward } from './line-scan.js';
import { findLogDamage } from './log-integrity.js';
import { isErrorCode } from './private-fs.js';
import { decodeLine } from './record-codec.js';
import type { MessageRecord, SessionHeaderRecord } from './records.js';
import { sessionPaths } from './session-files.js';
import { readStoredFile } from './stored-file.js';
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
const FIRST_LINE_CHARS = 100;

function firstLine(message: Message | undefined): string | undefined {
  if (message?.role !== 'user') return undefined;
  const line = message.content.split('\n').find((text) => text.trim() !== '') ?? '';
  return line.length > FIRST_LINE_CHARS ? `${line.slice(0, FIRST_LINE_CHARS - 1)}…` : line;
}

/** Reads what a listing needs from a v2 log: the header and first user message from the front, the last records from the back. */
async function summarizeLog(id: string, logFile: string): Promise<SessionSummary> {
  let header: SessionHeaderRecord | undefined;
  let firstUser: MessageRecord | undefined;
  await scanLinesForward(logFile, FIRST_MESSAGE_SCAN_BYTES, (line) => {
    const decoded = decodeLine(line);
    if (decoded.kind !== 'record') return true;
    if (decoded.record.type === 'session') header = decoded.record;
    if (decoded.record.type === 'message' && decoded.record.message.role === 'user') firstUser = decoded.record;
    return header === undefined || firstUser !== undefined;
  });
  if (header === undefined) throw new Error(`${logFile} has no readable session header`);

  let updatedAt: string | undefined;
  let messageCount = 0;
  await scanLinesBackward(logFile, (line) => {
    const decoded = decodeLine(line);
    if (decoded.kind !== 'record') return false;
    updatedAt ??= decoded.record.at;
    if (decoded.record.type === 'message') messageCount = decoded.record.index + 1;
    return decoded.record.type === 'message' || decoded.record.type === 'session';
  });
  const damage = await findLogDamage(logFile);
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
  const directories = new Set(entries.filter((entry) => entry.isDirectory() && isSafeId(entry.name)).map((entry) => entry.name));
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

/**
 * Every session in FORGE_HOME, most recently updated first. Parses only the start and end of each
 * log and checks the checksum and numbering of every other line without parsing it, so listing
 * stays fast however long the sessions are and a damaged session is never listed as healthy. A
 * session that cannot be read is listed with a `problem` instead of failing the whole listing.
 */
export async function listSessions(home: string): Promise<SessionSummary[]> {
  const layout = forgeHomeLayout(home);
  const ids = await storedIds(home);
  const summaries = await Promise.all([
    ...ids.v2.map((id) => withProblem(id, 2, () => summarizeLog(id, sessionPaths(layout, id).logFile))),
    ...ids.v1.map((id) => withProblem(id, 1, () => summarizeV1(id, sessionPaths(layout, id).v1File))),
  ]);
  return summaries.sort((left, right) => (left.updatedAt < right.updatedAt ? 1 : left.updatedAt > right.updatedAt ? -1 : left.id.localeCompare(right.id)));
}

async function withProblem(id: string, schemaVersion: 1 | 2, summarize: () => Promise<SessionSummary>): Promise<SessionSummary> {
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

/** The most recently updated readable session, optionally only among those of one workspace. */
export async function lastSession(home: string, options: { readonly workspaceRoot?: string } = {}): Promise<SessionSummary | undefined> {
  const sessions = await listSessions(home);
  return sessions.find((session) => session.problem === undefined && (options.workspaceRoot === undefined || session.workspaceRoot === options.workspaceRoot));
}
