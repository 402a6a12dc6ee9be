import { lastSession, SESSION_LOG_FILE_NAME, sessionIds, type SessionSummary } from '@forge/persistence';
import path from 'node:path';
import { CliError, UsageError } from '../cli-error.js';
import { resolveWorkspaceRoot } from '../agent/workspace.js';
import type { GlobalOptions } from '../commands/command.js';
import type { CliIo } from '../io.js';
import { checkSessionId, LIST_SESSIONS_HINT } from './session-choice.js';
import { resolveSessionSettings, type SessionSettings } from './session-settings.js';

/** How many candidates an ambiguous prefix lists. */
const LISTED_CANDIDATES = 5;

/** What a person typed to name a session: `--last`, or an id or a unique prefix of one. */
export type SessionReference =
  | { readonly kind: 'last' }
  | { readonly kind: 'id'; readonly text: string; readonly source: string };

/** Where a reference is resolved, and how to tell the user to list the sessions (`forge sessions list` or `/sessions`). */
export interface SessionLookup {
  readonly forgeHome: string;
  readonly workspaceRoot: string;
  readonly listHint: string;
}

/** The outcome of matching a typed id against known ids: exact or unique-prefix match, none, or several. */
export type IdMatch =
  | { readonly kind: 'found'; readonly id: string }
  | { readonly kind: 'none' }
  | { readonly kind: 'ambiguous'; readonly ids: readonly string[] };

/** Matches `text` against `ids`: an exact id wins; otherwise the ids that start with it. */
export function matchId(text: string, ids: readonly string[]): IdMatch {
  if (ids.includes(text)) return { kind: 'found', id: text };
  const matches = ids.filter((id) => id.startsWith(text));
  if (matches.length === 1 && matches[0] !== undefined) return { kind: 'found', id: matches[0] };
  return matches.length === 0 ? { kind: 'none' } : { kind: 'ambiguous', ids: [...matches].sort() };
}

/** `'abc' matches 3 sessions: a, b, c` with at most a few listed. */
export function ambiguityMessage(text: string, ids: readonly string[], noun: string): string {
  const shown = ids.slice(0, LISTED_CANDIDATES).join(', ');
  const more = ids.length > LISTED_CANDIDATES ? ` and ${ids.length - LISTED_CANDIDATES} more` : '';
  return `'${text}' matches ${ids.length} ${noun}: ${shown}${more}; give more of the id`;
}

/**
 * The most recently updated session of `workspaceRoot` that holds at least one message (a
 * session opened and left without a request is not worth resuming).
 */
export async function lastWorkspaceSession(lookup: SessionLookup): Promise<SessionSummary> {
  const found = await lastSession(lookup.forgeHome, { workspaceRoot: lookup.workspaceRoot, withMessages: true });
  if (found === undefined)
    throw new UsageError(`--last found no earlier session for ${lookup.workspaceRoot}; ${lookup.listHint}`);
  if (found.problem !== undefined) {
    const logFile = path.join(lookup.forgeHome, 'sessions', found.id, SESSION_LOG_FILE_NAME);
    throw new CliError(
      `--last: the newest session of ${lookup.workspaceRoot}, ${found.id}, is ${found.problem}. Forge did not change it. ` +
        `'forge sessions show ${found.id}' names the line; keep a copy of ${logFile} before editing that line by hand, ` +
        `or continue an older session with --resume <id> (${lookup.listHint}).`,
    );
  }
  return found;
}

/**
 * The one place that decides which stored session a reference means, for every command and
 * slash command: `--last` is this workspace's newest session with messages; an id is taken as
 * it is when it exists, else as a prefix that must match exactly one stored id. Unknown and
 * ambiguous references are usage errors that say what to do.
 */
export async function resolveSessionReference(reference: SessionReference, lookup: SessionLookup): Promise<string> {
  if (reference.kind === 'last') return (await lastWorkspaceSession(lookup)).id;
  const text = checkSessionId(reference.text, reference.source, lookup.listHint);
  const match = matchId(text, await sessionIds(lookup.forgeHome));
  switch (match.kind) {
    case 'found':
      return match.id;
    case 'ambiguous':
      throw new UsageError(`${reference.source} ${ambiguityMessage(text, match.ids, 'sessions')}`);
    case 'none':
      throw new UsageError(
        `${reference.source} '${text}': there is no session with this id or prefix in ${lookup.forgeHome}; ${lookup.listHint}`,
      );
  }
}

/** The options that name a stored session: `--session <id>` or `--resume <id>`, or `--last`, and where to look. */
export type SessionTargetOptions = Pick<GlobalOptions, 'forgeHome' | 'cwd' | 'last' | 'resume'> & {
  readonly session?: string;
};

/** Where this invocation looks sessions up: its FORGE_HOME and `--cwd`'s workspace, with the CLI's list hint. */
export async function cliSessionLookup(
  io: CliIo,
  options: Pick<GlobalOptions, 'cwd'>,
  settings: SessionSettings,
): Promise<SessionLookup> {
  return {
    forgeHome: settings.forgeHome,
    workspaceRoot: await resolveWorkspaceRoot(io.cwd, options.cwd),
    listHint: LIST_SESSIONS_HINT,
  };
}

/**
 * The stored session a command works on (`forge compact`, `forge checkpoint show`): `--session
 * <id>` (or `--resume <id>`) or `--last`, resolved by `resolveSessionReference`, with the session
 * settings of the invocation. Neither, or both, is a usage error; `missing` says what to give.
 */
export async function resolveSessionTarget(
  io: CliIo,
  options: SessionTargetOptions,
  missing: string,
): Promise<{ readonly id: string; readonly settings: SessionSettings }> {
  const settings = await resolveSessionSettings({ io, globals: options });
  const lookup = await cliSessionLookup(io, options, settings);
  const named =
    options.session !== undefined
      ? { flag: '--session', text: options.session }
      : options.resume !== undefined
        ? { flag: '--resume', text: options.resume }
        : undefined;
  if (named !== undefined && options.last === true)
    throw new UsageError(`${named.flag} and --last both choose a session; give one of them`);
  if (named !== undefined)
    return {
      id: await resolveSessionReference({ kind: 'id', text: named.text, source: named.flag }, lookup),
      settings,
    };
  if (options.last === true) return { id: await resolveSessionReference({ kind: 'last' }, lookup), settings };
  throw new UsageError(missing);
}
