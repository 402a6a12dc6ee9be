import { assertSafeId } from '@forge/core';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { ForgeHomeLayout } from './home.js';
import { v1BackupFileName, v1FileName } from './v1.js';

export const SESSION_INDEX_FILE_NAME = 'session.index.json';

export const SESSION_LOG_FILE_NAME = 'session.jsonl';

/** The paths of one session. The id is checked before it becomes part of any path. */
export interface SessionPaths {
  readonly id: string;
  readonly directory: string;
  readonly logFile: string;
  /** The index beside the log (`session-index.ts`). */
  readonly indexFile: string;
  readonly v1File: string;
  readonly v1Backup: string;
}

export function sessionPaths(layout: ForgeHomeLayout, id: string): SessionPaths {
  assertSafeId(id, 'session id');
  const directory = join(layout.sessions, id);
  return {
    id,
    directory,
    logFile: join(directory, SESSION_LOG_FILE_NAME),
    indexFile: join(directory, SESSION_INDEX_FILE_NAME),
    v1File: join(layout.sessions, v1FileName(id)),
    v1Backup: join(layout.sessions, v1BackupFileName(id)),
  };
}

/** A hidden directory beside the sessions (listing skips names starting with a dot). */
export function temporarySessionDirectory(layout: ForgeHomeLayout, id: string, purpose: string): string {
  return join(layout.sessions, `.${purpose}-${id}-${randomBytes(6).toString('hex')}`);
}
