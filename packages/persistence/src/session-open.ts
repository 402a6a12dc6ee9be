import { createId, InvalidInputError } from '@forge/core';
import { createRedactor, type Redactor } from '@forge/core/redaction';
import { access, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { SessionNotFoundError } from './errors.js';
import { ensureForgeHome, type ForgeHomeLayout } from './home.js';
import { acquireSessionLock, type SessionLock } from './lock.js';
import { readSessionLog, type ParsedSessionLog } from './log-reader.js';
import { openStoredFile } from './stored-file.js';
import { SessionIndexBuilder, suffixOf, writeSessionIndex } from './session-index.js';
import { readSessionWindow } from './session-window.js';
import { keepTornTail } from './torn-file.js';
import { migrateV1Session } from './migrate-v1.js';
import { createPrivateDirectory, isErrorCode, openPrivateFile } from './private-fs.js';
import { syncDirectory, writeDurably } from '@forge/bounded-read';
import { encodeRecord } from './record-codec.js';
import { SESSION_SCHEMA_VERSION } from './records.js';
import { SESSION_LOG_FILE_NAME, sessionPaths, temporarySessionDirectory, type SessionPaths } from './session-files.js';
import { SessionStateBuilder, type SessionWarning } from './session-state.js';
import { SessionWriter } from './session-writer.js';

export interface SessionWriterOptions {
  /** Applied to every message and error before it is stored; default: common credential shapes. */
  readonly redactor?: Redactor;
  /** Milliseconds since the epoch; injectable for tests. */
  readonly now?: () => number;
}

export interface OpenSessionOptions extends SessionWriterOptions {
  /**
   * Reads only the current checkpoint's window (what a resume in mode `compact` sends) when the
   * session's index gives one: see `readSessionWindow` and `SessionWriter.windowed`. Anything
   * that needs the earlier messages reads them then.
   */
  readonly window?: boolean;
}

export interface CreateSessionOptions extends SessionWriterOptions {
  /** The workspace the session works in (recorded in its header). */
  readonly workspaceRoot: string | null;
  /** A chosen id; by default a new sortable one (`session_…`). */
  readonly id?: string;
  /**
   * False for a writer that only appends (an import of a long log): messages are written and
   * counted but not kept in memory, so `messages` and `transcript().messages` stay empty.
   */
  readonly keepMessages?: boolean;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch (error) {
    if (isErrorCode(error, 'ENOENT')) return false;
    throw error;
  }
}

/**
 * Creates a new session and returns its writer (holding the lock). The session is built in a
 * hidden directory and renamed into place once its header is on disk, so a crash never leaves a
 * session without a header.
 */
export async function createSession(home: string, options: CreateSessionOptions): Promise<SessionWriter> {
  const now = options.now ?? Date.now;
  const layout = await ensureForgeHome(home);
  const paths = sessionPaths(layout, options.id ?? createId('session', now()));
  if ((await exists(paths.directory)) || (await exists(paths.v1File))) {
    throw new InvalidInputError({
      message: `A session ${paths.id} already exists in ${layout.sessions}; choose another id.`,
    });
  }
  const building = temporarySessionDirectory(layout, paths.id, 'creating');
  await createPrivateDirectory(building);
  let lock: SessionLock | undefined;
  try {
    lock = await acquireSessionLock(building, paths.id, now);
    const logFile = join(building, SESSION_LOG_FILE_NAME);
    const handle = await openPrivateFile(logFile, { exclusive: true });
    const state = new SessionStateBuilder(paths.id, { keepMessages: options.keepMessages ?? true });
    const at = new Date(now()).toISOString();
    const header = {
      v: SESSION_SCHEMA_VERSION,
      seq: 0,
      type: 'session' as const,
      at,
      id: paths.id,
      createdAt: at,
      workspaceRoot: options.workspaceRoot,
    };
    try {
      await writeDurably(handle, Buffer.from(encodeRecord(header)), logFile);
      await syncDirectory(building);
      await rename(building, paths.directory);
      await syncDirectory(layout.sessions);
    } catch (error) {
      await handle.close();
      throw error;
    }
    state.apply(header);
    return new SessionWriter({
      ...writerPaths(paths),
      handle,
      lock: lock.relocate(paths.directory),
      state,
      warnings: [],
      redactor: options.redactor ?? createRedactor(),
      now,
      logBytes: Buffer.byteLength(encodeRecord(header)),
    });
  } catch (error) {
    await lock?.release();
    await rm(building, { recursive: true, force: true });
    throw error;
  }
}

function writerPaths(paths: SessionPaths): { id: string; directory: string; logFile: string; indexFile: string } {
  return { id: paths.id, directory: paths.directory, logFile: paths.logFile, indexFile: paths.indexFile };
}

/**
 * Opens an existing session for writing: takes its lock (recovering one left by a dead process),
 * loads it, and cuts off a torn last record so new records follow intact ones; the bytes cut off
 * are kept in `session.jsonl.torn` first. A schema v1 file
 * is migrated to v2 first; the original is kept as `<id>.v1.bak`.
 */
export async function openSession(home: string, id: string, options: OpenSessionOptions = {}): Promise<SessionWriter> {
  const now = options.now ?? Date.now;
  const redactor = options.redactor ?? createRedactor();
  const layout = await ensureForgeHome(home);
  const paths = sessionPaths(layout, id);
  if (!(await exists(paths.directory))) {
    if (!(await exists(paths.v1File)))
      throw new SessionNotFoundError({ sessionId: id, sessionsDirectory: layout.sessions });
    const migrated = await migrateV1Session(layout, paths, { redactor, now });
    if (migrated !== undefined) return migrated;
  }

  const lock = await acquireSessionLock(paths.directory, id, now);
  try {
    const indexing = new SessionIndexBuilder();
    const window = options.window === true ? await readSessionWindow(paths, id) : undefined;
    const parsed =
      window ??
      (await readSessionLog({
        file: paths.logFile,
        sessionId: id,
        onRecord: (record, offset, end, line) => indexing.apply(record, offset, end, suffixOf(line)),
      }));
    const warnings: SessionWarning[] = [];
    const handle = await openPrivateFile(paths.logFile, { exclusive: false });
    try {
      // The torn tail is kept before it is cut off: a crash in between leaves its bytes in both places, never in neither.
      const tornFile =
        parsed.tornBytes > 0 ? await keepTornTail(paths.logFile, await tornBytesOf(paths.logFile, parsed)) : undefined;
      for (const warning of parsed.transcript.warnings) {
        warnings.push(
          warning.code === 'torn_tail' && tornFile !== undefined
            ? { ...warning, message: `${warning.message} Its bytes were kept in ${tornFile}.` }
            : warning,
        );
      }
      if (lock.recoveredFrom !== undefined) {
        warnings.push({
          code: 'lock_recovered',
          message: `Recovered the lock of session ${id} left by process ${lock.recoveredFrom.pid}, which no longer runs.`,
        });
      }
      if (parsed.tornBytes > 0) await handle.truncate(parsed.intactBytes);
      // Flushed only when the log changed: opening an intact session costs no fdatasync.
      if (parsed.tornBytes > 0 || parsed.missingFinalNewline)
        await writeDurably(handle, Buffer.from(parsed.missingFinalNewline ? '\n' : ''), paths.logFile);
      await finishV1Backup(paths, parsed.transcript.migratedFrom !== undefined, warnings, layout);
      // The whole log was just read: its index costs nothing more to bring up to date (a window was read from a fresh one).
      const indexed = window === undefined ? indexing.current : undefined;
      if (indexed !== undefined) {
        const stats = await handle.stat();
        await writeSessionIndex(paths.indexFile, {
          ...indexed,
          logMtimeMs: indexed.logBytes === stats.size ? stats.mtimeMs : 0,
        });
      }
    } catch (error) {
      await handle.close();
      throw error;
    }
    return new SessionWriter({
      ...writerPaths(paths),
      handle,
      lock,
      state: parsed.state,
      warnings,
      redactor,
      now,
      logBytes: parsed.intactBytes + (parsed.missingFinalNewline ? 1 : 0),
      ...(window === undefined
        ? {}
        : {
            window: {
              lastRunEndedAt: window.lastRunEndedAt,
              start: window.start,
              requestsBefore: window.requestsBefore,
              lastModel: window.lastModel,
            },
          }),
    });
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/** The bytes after the intact part of a log (we hold its lock: nothing appends meanwhile). */
async function tornBytesOf(logFile: string, parsed: ParsedSessionLog): Promise<Buffer> {
  const handle = await openStoredFile(logFile);
  try {
    const bytes = Buffer.alloc(parsed.tornBytes);
    const { bytesRead } = await handle.read(bytes, 0, bytes.length, parsed.intactBytes);
    return bytes.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Completes a migration interrupted between installing the v2 session and keeping the v1 file aside. */
async function finishV1Backup(
  paths: SessionPaths,
  wasMigrated: boolean,
  warnings: SessionWarning[],
  layout: ForgeHomeLayout,
): Promise<void> {
  if (!(await exists(paths.v1File))) return;
  if (wasMigrated) {
    await rename(paths.v1File, paths.v1Backup);
    await syncDirectory(layout.sessions);
    return;
  }
  warnings.push({
    code: 'v1_leftover',
    message: `Both ${paths.v1File} (schema v1) and ${paths.directory} exist; Forge uses the v2 session and leaves the v1 file alone.`,
  });
}
