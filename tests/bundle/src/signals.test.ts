import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ensureTmux, TmuxTerminal } from '@forge/cli/testing-terminal';
import { describe, expect, it } from 'vitest';
import { useBundle, userSetup, type UserSetup } from './support/bundle.js';
import { hostPidOf } from '@forge/cli/test-helpers/debian-programs';
import { ancestorsOf, isAlive, poll } from './support/processes.js';

/*
 * Real signals to the built binary while the model's command runs: Ctrl-C (SIGINT), SIGTERM, and
 * SIGHUP both sent and caused by closing the terminal the REPL runs in. The command ignores
 * SIGTERM and has started a process in a session of its own (setsid), so Forge must escalate to
 * SIGKILL and find the escapee. Each time the session must record the run as cancelled, the lock
 * must be gone, the trace closed and no process of the command left. The command runs in the
 * default sandbox (bubblewrap, installed by the test set-up), where `$$` is a pid of its own PID
 * namespace: its processes are found on the host by the words their command lines hold.
 */

const fixture = useBundle('bundle-signals');

/** A command that ignores SIGTERM, records its pid, and starts an escapee (also ignoring SIGTERM) that records its own. */
const stubbornCommand = {
  toolName: 'run_command',
  input: {
    argv: [
      'sh',
      '-c',
      "trap '' TERM; echo $$ > command.pid; setsid sh -c 'trap \"\" TERM; echo $$ > escaped.pid; while :; do sleep 1; done; : forge-stubborn-escapee' < /dev/null > /dev/null 2>&1 & while :; do sleep 1; done; : forge-stubborn-command",
    ],
  },
};

/** The host pids of the command and its escapee, once both have started. */
async function pidsOf(user: UserSetup): Promise<{ readonly command: number; readonly escaped: number }> {
  const files = ['command.pid', 'escaped.pid'].map((name) => path.join(user.workspace, name));
  await poll(
    () => files.every((file) => existsSync(file) && readFileSync(file, 'utf8').trim().length > 0),
    20_000,
    'the command and its escapee to start',
  );
  const [command, escaped] = files.map((file, index) =>
    hostPidOf(Number(readFileSync(file, 'utf8')), index === 0 ? 'forge-stubborn-command' : 'forge-stubborn-escapee'),
  );
  expect(command).toBeGreaterThan(0);
  expect(escaped).toBeGreaterThan(0);
  return { command: command ?? 0, escaped: escaped ?? 0 };
}

/** The session, its lock file and the last event of the run's trace, as stored after Forge ended. */
async function storedRun(user: UserSetup, sessionId: string) {
  const session = await user.session(sessionId);
  const runId = session.runs[0]?.runId ?? '';
  const trace = (await readFile(path.join(user.forgeHome, 'runs', `${runId}.jsonl`), 'utf8')).trim().split('\n');
  const last = JSON.parse(trace.at(-1) ?? '{}') as { event: { type: string; status?: string } };
  return {
    statuses: session.runs.map((run) => run.status),
    locked: existsSync(path.join(user.forgeHome, 'sessions', sessionId, 'lock')),
    lastEvent: last.event,
  };
}

const signals = [
  ['SIGINT', 130, 'forge: cancelled\n'],
  ['SIGTERM', 143, 'forge: cancelled by SIGTERM\n'],
  ['SIGHUP', 129, 'forge: cancelled by SIGHUP\n'],
] as const;

describe('forge run from the bundle, ended by a signal while a command runs', () => {
  for (const [signal, code, message] of signals) {
    it(`${signal}: exit ${code}, the command and its escapee killed, the run cancelled, the lock released, the trace closed`, async () => {
      const user = await userSetup(fixture, `signal-${signal}`);
      const script = await user.writeModelScript([{ toolCalls: [stubbornCommand] }, { text: 'never reached' }]);
      const forge = user.start(
        ['run', '--model', 'scripted:file', '--approval', 'workspace-auto', '--json', 'Run it'],
        script,
      );
      const pids = await pidsOf(user);

      const sent = Date.now();
      forge.child.kill(signal);
      const ended = await forge.ended;
      // The command ignores SIGTERM and would run for ever: Forge waits its 2 s grace, then kills it.
      expect(Date.now() - sent).toBeLessThan(15_000);
      expect(ended.signal).toBeNull();
      expect(ended.code).toBe(code);
      expect(ended.stderr).toContain(message);
      expect(isAlive(pids.command)).toBe(false);
      expect(isAlive(pids.escaped)).toBe(false);

      const sessionId = (JSON.parse(ended.stdout.split('\n')[0] ?? '{}') as { sessionId?: string }).sessionId ?? '';
      expect(await storedRun(user, sessionId)).toEqual({
        statuses: ['cancelled'],
        locked: false,
        lastEvent: expect.objectContaining({ type: 'run.completed', status: 'cancelled' }),
      });
    }, 60_000);
  }
});

describe('the bundled REPL when its terminal closes', () => {
  it('cancels the running turn, kills the command and its escapee, records the run and exits', async () => {
    ensureTmux();
    const user = await userSetup(fixture, 'hangup');
    const script = await user.writeModelScript([{ toolCalls: [stubbornCommand] }, { text: 'never reached' }]);
    const terminal = TmuxTerminal.start({
      command: [process.execPath, fixture.bundle().bin, '--model', 'scripted:file', '--approval', 'workspace-auto'],
      cwd: user.workspace,
      env: { ...user.env, ...script, TERM: 'xterm-256color' },
    });
    try {
      const banner = await terminal.waitFor((screen) => screen.includes('Type a request'), 20_000, 'the REPL banner');
      const sessionId = /session (session_[A-Za-z0-9_-]+)/.exec(banner)?.[1] ?? '';
      terminal.enter('Run the stubborn command');
      const pids = await pidsOf(user);
      // The command descends from the forge process (through bubblewrap).
      const forgePid =
        ancestorsOf(pids.command).find((pid) =>
          readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(fixture.bundle().bin),
        ) ?? 0;
      expect(isAlive(forgePid)).toBe(true);

      terminal.close();
      await poll(() => !isAlive(forgePid), 15_000, 'forge to exit after its terminal closed');
      expect(isAlive(pids.command)).toBe(false);
      expect(isAlive(pids.escaped)).toBe(false);
      expect(await storedRun(user, sessionId)).toEqual({
        statuses: ['cancelled'],
        locked: false,
        lastEvent: expect.objectContaining({ type: 'run.completed', status: 'cancelled' }),
      });
    } finally {
      terminal.close();
    }
  }, 60_000);
});
