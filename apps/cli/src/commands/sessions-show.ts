import { UsageError } from '../cli-error.js';
import { ExitCode } from '../exit-codes.js';
import { styleFor } from '../output/style.js';
import { loadStoredSession } from '../session/open-cli-session.js';
import { cliSessionLookup, resolveSessionReference } from '../session/resolve-session.js';
import { renderSessionDetail } from '../session/session-render.js';
import { resolveSessionSettings } from '../session/session-settings.js';
import type { SessionsShowOptions } from '../program.js';
import type { CommandInvocation } from './command.js';

/**
 * `forge sessions show (<id> | --last)`: one session's header, runs and messages. The id may be a
 * unique prefix; `--last` is this workspace's newest session. Reads only; takes no lock.
 */
export async function execute({ args, options, io }: CommandInvocation<SessionsShowOptions>): Promise<number> {
  const requested = typeof args[0] === 'string' ? args[0] : undefined;
  if (requested !== undefined && options.last === true)
    throw new UsageError(`give either a session id or --last, not both (got '${requested}' and --last)`);
  const settings = await resolveSessionSettings({ io, globals: options });
  const lookup = await cliSessionLookup(io, options, settings);
  let id: string;
  if (requested !== undefined)
    id = await resolveSessionReference({ kind: 'id', text: requested, source: 'session' }, lookup);
  else if (options.last === true) id = await resolveSessionReference({ kind: 'last' }, lookup);
  else
    throw new UsageError("say which session to show: forge sessions show <id> or --last (see 'forge sessions list')");
  const session = await loadStoredSession(settings, id);
  io.stdout.write(
    options.json === true ? `${JSON.stringify(session)}\n` : renderSessionDetail(session, styleFor(io.stdout, io.env)),
  );
  return ExitCode.ok;
}
