import { ForgeError } from '@forge/core';

/**
 * A session log, v1 session file or trace holds a record that is damaged or impossible somewhere
 * other than at its very end, so it cannot be repaired by dropping a torn tail. Nothing is dropped silently: the
 * file and line are named so a person can look.
 */
export class CorruptFileError extends ForgeError {
  static override readonly errorCode = 'corrupt_file';
  readonly file: string;
  /** 1-based line number, when the problem is one line. */
  readonly line: number | undefined;

  constructor(options: { file: string; line?: number; problem: string; cause?: unknown }) {
    const where = options.line === undefined ? options.file : `${options.file}, line ${options.line}`;
    super({
      code: CorruptFileError.errorCode,
      message: `${where}: ${options.problem}. Forge did not change the file; keep a copy before editing it by hand.`,
      cause: options.cause,
    });
    this.name = 'CorruptFileError';
    this.file = options.file;
    this.line = options.line;
  }
}

/** Who holds a session's writer lock, as written in its lock file. */
export interface LockOwner {
  readonly pid: number;
  readonly hostname: string;
  readonly startedAt: string;
  readonly token: string;
}

/** Another process (or another writer in this one) is writing the session. */
export class SessionLockedError extends ForgeError {
  static override readonly errorCode = 'session_locked';
  readonly sessionId: string;
  readonly owner: LockOwner | undefined;
  readonly lockFile: string;

  constructor(options: { sessionId: string; owner: LockOwner | undefined; lockFile: string; sameHost: boolean }) {
    const { owner } = options;
    const holder =
      owner === undefined
        ? 'another process (its lock file is unreadable)'
        : `process ${owner.pid}${options.sameHost ? '' : ` on host ${owner.hostname}`} (since ${owner.startedAt})`;
    super({
      code: SessionLockedError.errorCode,
      message:
        `Session ${options.sessionId} is in use by ${holder}; only one forge may write a session at a time. ` +
        `Finish or close that forge, or start a new session. If no such process is running, delete ${options.lockFile}.`,
      isRetryable: true,
    });
    this.name = 'SessionLockedError';
    this.sessionId = options.sessionId;
    this.owner = owner;
    this.lockFile = options.lockFile;
  }
}

/** No session with this id exists in FORGE_HOME. */
export class SessionNotFoundError extends ForgeError {
  static override readonly errorCode = 'session_not_found';
  readonly sessionId: string;

  constructor(options: { sessionId: string; sessionsDirectory: string }) {
    super({
      code: SessionNotFoundError.errorCode,
      message: `No session ${options.sessionId} in ${options.sessionsDirectory}. Run \`forge sessions list\` to see the sessions there.`,
    });
    this.name = 'SessionNotFoundError';
    this.sessionId = options.sessionId;
  }
}

/** The file was written by a newer Forge with a schema this version cannot read. */
export class UnsupportedSchemaError extends ForgeError {
  static override readonly errorCode = 'unsupported_schema';
  readonly file: string;
  readonly version: unknown;

  constructor(options: { file: string; version: unknown; supported: readonly number[] }) {
    super({
      code: UnsupportedSchemaError.errorCode,
      message: `${options.file} uses schema version ${JSON.stringify(options.version)}, but this Forge reads versions ${options.supported.join(', ')}. Upgrade Forge to open it.`,
    });
    this.name = 'UnsupportedSchemaError';
    this.file = options.file;
    this.version = options.version;
  }
}
