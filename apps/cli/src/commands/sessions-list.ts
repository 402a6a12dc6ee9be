import { listSessions } from '@forge/persistence';
import path from 'node:path';
import { UsageError } from '../cli-error.js';
import { ExitCode } from '../exit-codes.js';
import { styleFor } from '../output/style.js';
import { DEFAULT_SESSION_LIST_LIMIT, type SessionsListOptions } from '../program.js';
import { resolveSessionSettings } from '../session/session-settings.js';
import { renderSessionList } from '../session/session-render.js';
import type { CommandInvocation } from './command.js';

/**
 * `forge sessions list`: stored sessions, most recently updated first, the newest 20 unless
 * `--limit` or `--all` says otherwise, `--workspace` keeping one workspace's. Each comes from the
 * session's small index, not its log. Reads only; takes no lock.
 */
export async function execute({ options, io }: CommandInvocation<SessionsListOptions>): Promise<number> {
  if (options.all === true && options.limit !== undefined)
    throw new UsageError('--all and --limit both say how many sessions to show; give one of them');
  const settings = await resolveSessionSettings({ io, globals: options });
  const workspaceRoot = options.workspace === undefined ? undefined : path.resolve(io.cwd, options.workspace);
  const limit = options.all === true ? undefined : (options.limit ?? DEFAULT_SESSION_LIST_LIMIT);
  const listed = await listSessions(settings.forgeHome, {
    ...(workspaceRoot === undefined ? {} : { workspaceRoot }),
    ...(limit === undefined ? {} : { limit: limit + 1 }),
  });
  const sessions = limit === undefined ? listed : listed.slice(0, limit);
  if (options.json === true) {
    io.stdout.write(`${JSON.stringify(sessions)}\n`);
    return ExitCode.ok;
  }
  if (sessions.length === 0) {
    io.stdout.write(
      workspaceRoot === undefined
        ? `No sessions in ${settings.forgeHome} yet; 'forge' and 'forge run' start one.\n`
        : `No sessions of ${workspaceRoot} in ${settings.forgeHome}.\n`,
    );
    return ExitCode.ok;
  }
  io.stdout.write(renderSessionList(sessions, { style: styleFor(io.stdout, io.env) }));
  if (listed.length > sessions.length)
    io.stdout.write(
      styleFor(io.stdout, io.env).dim(`  (the newest ${sessions.length} shown; --limit <n> or --all for more)\n`),
    );
  return ExitCode.ok;
}
