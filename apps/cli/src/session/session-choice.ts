import { isSafeId } from '@forge/core';
import { UsageError } from '../cli-error.js';
import type { GlobalOptions } from '../commands/command.js';

/** Which session a command works on, from `--resume <id>`, `--last` and `--no-session`. */
export type SessionChoice =
  | { readonly kind: 'new' }
  | { readonly kind: 'resume'; readonly id: string; readonly source: string }
  | { readonly kind: 'last' }
  | { readonly kind: 'none' };

/** The hint CLI commands give for finding a session (the REPL says `/sessions` instead). */
export const LIST_SESSIONS_HINT = "run 'forge sessions list' to see the sessions";

/** Checks a session id from the command line before it goes near the file system. */
export function checkSessionId(id: string, source: string, listHint: string = LIST_SESSIONS_HINT): string {
  if (!isSafeId(id)) {
    throw new UsageError(
      `${source} ${JSON.stringify(id.slice(0, 140))} is not a session id (ids use 1–128 characters from A–Z, a–z, 0–9, "_" and "-"); ${listHint}`,
    );
  }
  return id;
}

/**
 * Reads the session options. `--resume <id>` and `--last` continue a session, `--no-session`
 * (where a command offers it, `session: false`) stores nothing; without them a new session starts.
 * Contradictory combinations are usage errors.
 */
export function sessionChoice(
  options: Pick<GlobalOptions, 'resume' | 'last'> & { readonly session?: boolean },
): SessionChoice {
  const { resume } = options;
  const last = options.last === true;
  const none = options.session === false;
  if (resume !== undefined && last) throw new UsageError('--resume and --last both choose a session; give one of them');
  if (none && (resume !== undefined || last))
    throw new UsageError('--no-session stores nothing, so it cannot be combined with --resume or --last');
  if (resume !== undefined) return { kind: 'resume', id: checkSessionId(resume, '--resume'), source: '--resume' };
  if (last) return { kind: 'last' };
  return none ? { kind: 'none' } : { kind: 'new' };
}
