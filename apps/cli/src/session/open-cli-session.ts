import { InvalidInputError } from '@forge/core';
import {
  CorruptFileError,
  loadTranscript,
  SessionLockedError,
  SessionNotFoundError,
  UnsupportedSchemaError,
  type SessionTranscript,
} from '@forge/persistence';
import { openSessionHandle, type SessionHandle } from '@forge/sessions';
import { CliError, UsageError } from '../cli-error.js';
import { resolveSessionReference } from './resolve-session.js';
import { LIST_SESSIONS_HINT, type SessionChoice } from './session-choice.js';
import type { SessionSettings } from './session-settings.js';

/**
 * Turns a session store failure into the one-line error the CLI prints: a session in use, an
 * unknown or invalid id exit with code 2 (the command line must change); a damaged or too new
 * session file exits with 1. Anything else is returned unchanged.
 */
export function sessionStoreError(error: unknown): unknown {
  if (
    SessionLockedError.isInstance(error) ||
    SessionNotFoundError.isInstance(error) ||
    InvalidInputError.isInstance(error)
  ) {
    return new UsageError(error.message);
  }
  if (CorruptFileError.isInstance(error) || UnsupportedSchemaError.isInstance(error))
    return new CliError(error.message);
  return error;
}

/** Reads a stored session's transcript without a lock, with store failures as CLI errors. */
export async function loadStoredSession(settings: SessionSettings, id: string): Promise<SessionTranscript> {
  try {
    return await loadTranscript(settings.forgeHome, id, { redactor: settings.redactor });
  } catch (error) {
    throw sessionStoreError(error);
  }
}

/** Opens a stored session, holding its lock, with store failures as CLI errors. */
export async function openStoredSession(settings: SessionSettings, id: string): Promise<SessionHandle> {
  try {
    return await openSessionHandle({ home: settings.forgeHome, sessionId: id, redactor: settings.redactor });
  } catch (error) {
    throw sessionStoreError(error);
  }
}

/** The id `choice` names (`--resume <id or prefix>`, `--last` in the workspace); undefined for a new session or none. */
export async function chosenSessionId(
  choice: SessionChoice,
  settings: SessionSettings,
  workspaceRoot: string,
  listHint: string = LIST_SESSIONS_HINT,
): Promise<string | undefined> {
  if (choice.kind === 'new' || choice.kind === 'none') return undefined;
  const lookup = { forgeHome: settings.forgeHome, workspaceRoot, listHint };
  return resolveSessionReference(
    choice.kind === 'last' ? { kind: 'last' } : { kind: 'id', text: choice.id, source: choice.source },
    lookup,
  );
}

/**
 * Opens the session a command works in, holding its lock: a new one for the workspace, or the
 * one `--resume`/`--last` names (repaired first if a crash interrupted it). Undefined for
 * `--no-session`.
 */
export async function openCliSession(options: {
  readonly choice: SessionChoice;
  readonly settings: SessionSettings;
  readonly workspaceRoot: string;
  /** How to tell the user to list the sessions (the REPL says `/sessions`). */
  readonly listHint?: string;
  /** Opens an existing session as a window (mode `compact`; see `OpenSessionHandleOptions.window`). */
  readonly window?: boolean;
}): Promise<SessionHandle | undefined> {
  const { choice, settings, workspaceRoot } = options;
  if (choice.kind === 'none') return undefined;
  try {
    const id = await chosenSessionId(choice, settings, workspaceRoot, options.listHint);
    const common = { home: settings.forgeHome, redactor: settings.redactor };
    return await openSessionHandle(
      id === undefined
        ? { ...common, workspaceRoot }
        : { ...common, sessionId: id, ...(options.window === true ? { window: true } : {}) },
    );
  } catch (error) {
    throw sessionStoreError(error);
  }
}
