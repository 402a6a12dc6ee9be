import { randomUUID } from 'node:crypto';
import { COMMAND_MARKER_VARIABLE, CommandProcesses } from '@forge/tools';
import { CodexAppServer } from '../app-server/client.js';

/**
 * Starts the App Server in a session of its own, every process it starts marked (the marker
 * variable of Forge's own commands), and once it exits — closed, or killed mid-turn — ends
 * whatever of its commands is left, so a `kill -9` of codex orphans nothing. `sweeps` gets one
 * promise per server, settled once that sweep is done.
 */
export async function startEndingItsCommands(options: {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly clientVersion: string;
  readonly sweeps: Promise<unknown>[];
}): Promise<CodexAppServer> {
  const marker = randomUUID();
  const running = await CodexAppServer.start({
    env: { ...options.env, [COMMAND_MARKER_VARIABLE]: marker },
    detached: true,
    clientInfo: { name: 'forge', version: options.clientVersion },
  });
  const pid = running.processId;
  if (pid !== undefined) {
    const processes = new CommandProcesses(pid, marker);
    options.sweeps.push(running.whenExited().then(() => processes.sweep()));
  }
  return running;
}
