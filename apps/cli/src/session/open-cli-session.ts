import { InvalidInputError } from '@forge/core';
import {
  CorruptFileError,
  listSessions,
  openSessionHandle,
  SessionLockedError,
  SessionNotFoundError,
  UnsupportedSchemaError,
  type SessionHandle,
  type SessionSummary,
} from '@forge/persistence';
import { CliError, UsageError } from '../cli-error.js';
import type { SessionChoice } from './session-choice.js';
import type { SessionSettings } from './session-settings.js';

/**
 * Turns a session store failure into the one-line error the CLI prints: a session in use, an
 * unknown or invalid id exit with code 2 (the command line must change); a damaged or too new
 * session file exits with 1. Anything else is returned unchanged.
 */
export function sessionStoreError(error: unknown): unknown {
  if (SessionLockedError.isInstance(error) || SessionNotFoundError.isInstance(error) || InvalidInputError.isInstance(error)) {
    return new UsageError(error.message);
  }
  if (CorruptFileError.isInstance(error) || UnsupportedSchemaError.isInstance(error)) return new CliError(error.message);
  return error;
}

/**
 * The most recently updated session of `workspaceRoot` that holds at least one message (a
 * session opened and left without a request is not worth resuming).
 */
export async function lastWorkspaceSession(forgeHome: string, workspaceRoot: string): Promise<SessionSummary> {
  const sessions = await listSessions(forgeHome);
  const found = sessions.find((session) => session.problem === undefined && session.workspaceRoot === workspaceRoot && session.messageCount > 0);
  if (found === undefined) {
    throw new UsageError(`--last found no earlier session for ${workspaceRoot}; run 'forge sessions list' to see all sessions and pass one with --resume <id>`);
  }
  return found;
}

/** The id `choice` names, resolving `--last` against the workspace; undefined for a new session or none. */
export async function chosenSessionId(choice: SessionChoice, settings: SessionSettings, workspaceRoot: string): Promise<string | undefined> {
  if (choice.kind === 'resume') return choice.id;
  if (choice.kind === 'last') return (await lastWorkspaceSession(settings.forgeHome, workspaceRoot)).id;
  return undefined;
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
}): Promise<SessionHandle | undefined> {
  const { choice, settings, workspaceRoot } = options;
  if (choice.kind === 'none') return undefined;
  try {
    const id = await chosenSessionId(choice, settings, workspaceRoot);
    const common = { home: settings.forgeHome, redactor: settings.redactor };
    return await openSessionHandle(id === undefined ? { ...common, workspaceRoot } : { ...common, sessionId: id });
  } catch (error) {
    throw sessionStoreError(error);
  }
}
