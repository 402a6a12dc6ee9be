import type { Redactor } from '@forge/core/redaction';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ForgeHomeLayout } from './home.js';
import { acquireSessionLock, type SessionLock } from './lock.js';
import { createPrivateDirectory, isErrorCode, openPrivateFile } from './private-fs.js';
import { syncDirectory, writeDurably } from '@forge/bounded-read';
import { encodeRecord } from './record-codec.js';
import { redactMessage } from './redact-message.js';
import { SESSION_SCHEMA_VERSION, type SessionRecord } from './records.js';
import { SESSION_LOG_FILE_NAME, temporarySessionDirectory, type SessionPaths } from './session-files.js';
import { SessionStateBuilder } from './session-state.js';
import { SessionWriter } from './session-writer.js';
import { readStoredFile } from './stored-file.js';
import { messageFromV1, parseV1Session, v1BackupFileName } from './v1.js';

/**
 * Migrates `sessions/<id>.json` (schema v1) to a v2 session directory and returns its writer.
 * Every message is carried over in order. The v2 session is built in a hidden directory, made
 * durable, renamed into place, and only then is the v1 file renamed to `<id>.v1.bak` (kept, never
 * deleted). A crash at any point leaves either the untouched v1 session or a complete v2 one.
 * Returns undefined if another process installed the v2 session first.
 */
export async function migrateV1Session(
  layout: ForgeHomeLayout,
  paths: SessionPaths,
  options: { readonly redactor: Redactor; readonly now: () => number },
): Promise<SessionWriter | undefined> {
  const v1 = parseV1Session((await readStoredFile(paths.v1File)).toString('utf8'), {
    file: paths.v1File,
    sessionId: paths.id,
  });
  const at = new Date(options.now()).toISOString();
  const records: SessionRecord[] = [
    {
      v: SESSION_SCHEMA_VERSION,
      seq: 0,
      type: 'session',
      at,
      id: paths.id,
      createdAt: v1.createdAt,
      workspaceRoot: null,
      migratedFrom: {
        version: 1,
        backupFile: v1BackupFileName(paths.id),
        messageCount: v1.messages.length,
        updatedAt: v1.updatedAt,
      },
    },
    ...v1.messages.map((message, index): SessionRecord => ({
      v: SESSION_SCHEMA_VERSION,
      seq: index + 1,
      type: 'message',
      at,
      index,
      message: redactMessage(messageFromV1(message), options.redactor),
    })),
  ];

  const building = temporarySessionDirectory(layout, paths.id, 'migrating');
  await createPrivateDirectory(building);
  let lock: SessionLock | undefined;
  let logBytes = 0;
  try {
    lock = await acquireSessionLock(building, paths.id, options.now);
    const logFile = join(building, SESSION_LOG_FILE_NAME);
    const handle = await openPrivateFile(logFile, { exclusive: true });
    try {
      const bytes = Buffer.from(records.map(encodeRecord).join(''), 'utf8');
      logBytes = bytes.length;
      await writeDurably(handle, bytes, logFile);
      await syncDirectory(building);
      try {
        await rename(building, paths.directory);
      } catch (error) {
        if (isErrorCode(error, 'ENOTEMPTY') || isErrorCode(error, 'EEXIST')) {
          await handle.close();
          await lock.release();
          await rm(building, { recursive: true, force: true });
          return undefined;
        }
        throw error;
      }
      lock = lock.relocate(paths.directory);
      await syncDirectory(layout.sessions);
      await rename(paths.v1File, paths.v1Backup);
      await syncDirectory(layout.sessions);
    } catch (error) {
      await handle.close();
      throw error;
    }
    const state = new SessionStateBuilder(paths.id);
    for (const record of records) state.apply(record);
    return new SessionWriter({
      id: paths.id,
      directory: paths.directory,
      logFile: paths.logFile,
      indexFile: paths.indexFile,
      handle,
      lock,
      state,
      warnings: [],
      redactor: options.redactor,
      now: options.now,
      logBytes,
    });
  } catch (error) {
    await lock?.release();
    await rm(building, { recursive: true, force: true });
    throw error;
  }
}
