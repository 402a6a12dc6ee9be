import { loadTranscript } from '@forge/persistence';
import { UsageError } from '../cli-error.js';
import { ExitCode } from '../exit-codes.js';
import { styleFor } from '../output/style.js';
import { sessionStoreError } from '../session/open-cli-session.js';
import { checkSessionId } from '../session/session-choice.js';
import { renderSessionDetail } from '../session/session-render.js';
import { resolveSessionSettings } from '../session/session-settings.js';
import type { CommandInvocation } from './command.js';

/** `forge sessions show <id>`: one session's header, runs and messages. Reads only; takes no lock. */
export async function execute({ args, options, io }: CommandInvocation): Promise<number> {
  const requested = args[0];
  if (typeof requested !== 'string') throw new UsageError("say which session to show: forge sessions show <id> (see 'forge sessions list')");
  const id = checkSessionId(requested, 'session');
  const settings = await resolveSessionSettings({ io, globals: options });
  let session;
  try {
    session = await loadTranscript(settings.forgeHome, id, { redactor: settings.redactor });
  } catch (error) {
    throw sessionStoreError(error);
  }
  io.stdout.write(options.json === true ? `${JSON.stringify(session)}\n` : renderSessionDetail(session, styleFor(io.stdout, io.env)));
  return ExitCode.ok;
}
