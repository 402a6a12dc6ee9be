import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { SessionTranscript } from '@forge/persistence';
import { ScriptedModel } from '@forge/core/testing';
import { hostPidOf } from '@forge/tools/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TerminationSignal } from '../io.js';
import { main } from '../main.js';
import { createTestIo, runCli, temporaryDirectory, waitFor } from '../test-support/cli-harness.js';

/*
 * SIGTERM and SIGHUP end a run the way Ctrl-C cancels it: the running command is stopped, the run
 * is recorded as cancelled and the session closed; Forge exits 143 or 129. The signals come in
 * through the CLI's io, as the real handlers deliver them (the built binary is tested with real
 * signals in tests/bundle).
 */

let workspace: Awaited<ReturnType<typeof temporaryDirectory>>;
let forgeHome: Awaited<ReturnType<typeof temporaryDirectory>>;

beforeEach(async () => {
  workspace = await temporaryDirectory();
  forgeHome = await temporaryDirectory('forge-home-');
});

afterEach(async () => {
  await workspace.remove();
  await forgeHome.remove();
});

/** A command that records its pid and then runs for a minute; `forge-long-command` finds its host pid in the sandbox. */
const longCommand = {
  toolName: 'run_command',
  input: {
    argv: [
      process.execPath,
      '-e',
      'require("fs").writeFileSync("command.pid", String(process.pid)); setInterval(() => {}, 1000) // forge-long-command',
    ],
  },
};

/** The host pid of the command, whose `process.pid` is one of its sandbox's PID namespace. */
function commandPidOf(pidFile: string): number {
  return hostPidOf(Number(readFileSync(pidFile, 'utf8')), 'forge-long-command') ?? 0;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function showSession(id: string): Promise<SessionTranscript> {
  const shown = await runCli(['sessions', 'show', id, '--json'], {
    cwd: workspace.path,
    env: { FORGE_HOME: forgeHome.path },
  });
  expect(shown.code).toBe(0);
  return JSON.parse(shown.stdout) as SessionTranscript;
}

const cases: readonly (readonly [TerminationSignal, number])[] = [
  ['SIGTERM', 143],
  ['SIGHUP', 129],
];

describe('forge run ended by a signal', () => {
  for (const [signal, code] of cases) {
    it(`${signal}: stops the command, records the run as cancelled, releases the session and exits ${code}`, async () => {
      const model = new ScriptedModel([{ toolCalls: [longCommand] }, { text: 'never reached' }]);
      const test = createTestIo({ cwd: workspace.path, env: { FORGE_HOME: forgeHome.path }, models: { main: model } });
      test.stdin.end();
      const exited = main(
        [
          'node',
          'forge',
          'run',
          '--model',
          'test:main',
          '--approval',
          'workspace-auto',
          '--json',
          'Run the long command',
        ],
        test.io,
      );
      const pidFile = path.join(workspace.path, 'command.pid');
      await waitFor(
        () => (existsSync(pidFile) ? readFileSync(pidFile, 'utf8') : ''),
        (text) => text.length > 0,
        30_000,
      );
      const commandPid = commandPidOf(pidFile);
      expect(commandPid).toBeGreaterThan(0);

      test.terminate(signal);
      expect(await exited).toBe(code);
      expect(test.stderr.text).toContain(`forge: cancelling… (${signal})\n`);
      expect(test.stderr.text).toContain(`forge: cancelled by ${signal}\n`);
      expect(isAlive(commandPid)).toBe(false);

      const sessionId = (JSON.parse(test.stdout.text.split('\n')[0] ?? '{}') as { sessionId?: string }).sessionId ?? '';
      expect(existsSync(path.join(forgeHome.path, 'sessions', sessionId, 'lock'))).toBe(false);
      const stored = await showSession(sessionId);
      expect(stored.runs.map((run) => run.status)).toEqual(['cancelled']);
      const toolResult = stored.messages.find((message) => message.role === 'tool');
      expect(JSON.stringify(toolResult)).toContain('cancelled');
      expect(model.requests).toHaveLength(1);
    }, 60_000);
  }
});

describe('the REPL ended by a signal', () => {
  it('SIGHUP during a turn cancels it, closes the session and exits 129; SIGTERM at the prompt exits 143', async () => {
    const model = new ScriptedModel([{ toolCalls: [longCommand] }, { text: 'never reached' }]);
    const test = createTestIo({ cwd: workspace.path, env: { FORGE_HOME: forgeHome.path }, models: { main: model } });
    const exited = main(['node', 'forge', '--model', 'test:main', '--approval', 'workspace-auto'], test.io);
    await waitFor(
      () => test.stdout.text,
      (text) => text.includes('Type a request'),
      30_000,
    );
    test.stdin.write('Run the long command\nthis typed-ahead line must not run\n');
    const pidFile = path.join(workspace.path, 'command.pid');
    await waitFor(
      () => (existsSync(pidFile) ? readFileSync(pidFile, 'utf8') : ''),
      (text) => text.length > 0,
      30_000,
    );
    const commandPid = commandPidOf(pidFile);
    expect(commandPid).toBeGreaterThan(0);

    test.terminate('SIGHUP');
    expect(await exited).toBe(129);
    expect(isAlive(commandPid)).toBe(false);
    const sessionId = /session (session_[A-Za-z0-9_-]+)/.exec(test.stdout.text)?.[1] ?? '';
    expect(existsSync(path.join(forgeHome.path, 'sessions', sessionId, 'lock'))).toBe(false);
    const stored = await showSession(sessionId);
    expect(stored.runs.map((run) => run.status)).toEqual(['cancelled']);
    expect(stored.messages.filter((message) => message.role === 'user')).toHaveLength(1);

    const idle = createTestIo({ cwd: workspace.path, env: { FORGE_HOME: forgeHome.path } });
    const idleExit = main(['node', 'forge'], idle.io);
    await waitFor(
      () => idle.stdout.text,
      (text) => text.includes('Type a request'),
      30_000,
    );
    idle.terminate('SIGTERM');
    expect(await idleExit).toBe(143);
  }, 90_000);
});
