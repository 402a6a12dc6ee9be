import { listSessions } from '@forge/persistence';
import { ExitCode } from '../exit-codes.js';
import { styleFor } from '../output/style.js';
import { resolveSessionSettings } from '../session/session-settings.js';
import { renderSessionList } from '../session/session-render.js';
import type { CommandInvocation } from './command.js';

/** `forge sessions list`: every stored session, most recently updated first. Reads only; takes no lock. */
export async function execute({ options, io }: CommandInvocation): Promise<number> {
  const settings = await resolveSessionSettings({ io, globals: options });
  const sessions = await listSessions(settings.forgeHome);
  if (options.json === true) {
    io.stdout.write(`${JSON.stringify(sessions)}\n`);
    return ExitCode.ok;
  }
  if (sessions.length === 0) {
    io.stdout.write(`No sessions in ${settings.forgeHome} yet; 'forge' and 'forge run' start one.\n`);
    return ExitCode.ok;
  }
  io.stdout.write(renderSessionList(sessions, { style: styleFor(io.stdout, io.env) }));
  return ExitCode.ok;
}
