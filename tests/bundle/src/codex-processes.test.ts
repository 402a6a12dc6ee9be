import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_MODEL, writeLoopbackConfig } from '@forge/codex/test-helpers/codex-harness';
import {
  execCommandCall,
  startLoopbackResponsesServer,
  type LoopbackResponsesServer,
} from '@forge/codex/test-helpers/loopback-responses';
import { toolResultTexts, useBundle, userSetup, type UserSetup } from './support/bundle.js';
import { childrenOf, isAlive, poll } from './support/processes.js';

/*
 * The commands the real Codex binary runs for a Forge turn end with it: `kill -9` of codex
 * mid-turn must not leave its command running under init, and a cancelled Codex turn records the
 * command that ran, with the note that it may still have been running.
 */

const fixture = useBundle('bundle-codex-processes');
const deadProxy = 'http://127.0.0.1:9';

let provider: LoopbackResponsesServer;
let user: UserSetup;
let codexEnv: Record<string, string>;
let codexHome: string;

beforeEach(async () => {
  provider = await startLoopbackResponsesServer();
  user = await userSetup(fixture, 'codex-processes');
  // Under /tmp, as the other Codex tests have it: Codex's bubblewrap sandbox then cannot start its
  // helper (it mounts a fresh /tmp over CODEX_HOME's link to it), and Codex runs the approved
  // command outside its sandbox — without bubblewrap's --die-with-parent, as on a machine without
  // a working sandbox. That is where a command outlived a killed codex.
  codexHome = await mkdtemp(path.join(user.forgeHome, '..', 'codex-home-'));
  await writeLoopbackConfig(codexHome, provider.baseUrl);
  codexEnv = {
    CODEX_HOME: codexHome,
    HTTP_PROXY: deadProxy,
    HTTPS_PROXY: deadProxy,
    ALL_PROXY: deadProxy,
    NO_PROXY: '127.0.0.1,localhost',
  };
});

afterEach(async () => {
  await provider.close();
  await rm(codexHome, { recursive: true, force: true });
});

/** The pids of processes whose command line is exactly `words` (a unique `sleep N`). */
function processesRunning(words: readonly string[]): number[] {
  const wanted = words.join('\0');
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        return readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0$/, '') === wanted;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/**
 * Codex's call of `sleep <seconds>` (ignoring SIGHUP, as a daemon would), then a model that never
 * answers. Should Codex's own sandbox fail to start the command (`execvp codex-linux-sandbox`, seen
 * with CODEX_HOME under /tmp), the model asks again, up to three times.
 */
function pushSleep(seconds: string): void {
  for (let attempt = 1; attempt <= 3; attempt += 1)
    provider.push({ items: [execCommandCall(`call_sleep_${attempt}`, `trap "" HUP; sleep ${seconds}; echo slept`)] });
  provider.push({ hang: true });
}

/** Waits for `sleep <seconds>` to run; otherwise cancels the run and fails with what the session recorded. */
async function commandStarted(forge: ReturnType<UserSetup['start']>, seconds: string): Promise<void> {
  try {
    await poll(() => processesRunning(['sleep', seconds]).length > 0, 30_000, 'the command to start');
  } catch (error) {
    forge.child.kill('SIGTERM');
    const ended = await forge.ended;
    const id = /"sessionId":"([^"]+)"/.exec(ended.stdout)?.[1] ?? '';
    throw new Error(`${String(error)}: ${JSON.stringify((await user.session(id)).messages)}\n${ended.stderr}`);
  }
}

const codexRun = (request: string) =>
  user.start(
    ['run', '--engine', 'codex', '--model', `codex:${TEST_MODEL}`, '--approval', 'workspace-auto', '--json', request],
    codexEnv,
  );

describe('the processes of the Codex engine, from the bundle', () => {
  it('kill -9 of codex mid-turn: its command does not outlive it, and the run fails naming the exit', async () => {
    const seconds = String(3000 + Math.floor(Math.random() * 900));
    pushSleep(seconds);
    const forge = codexRun('Sleep');
    await commandStarted(forge, seconds);
    const [sleeper] = processesRunning(['sleep', seconds]);
    const codex = childrenOf(forge.child.pid ?? 0).find((pid) =>
      readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('app-server'),
    );
    expect(codex).toBeGreaterThan(0);
    process.kill(codex ?? 0, 'SIGKILL');
    const ended = await forge.ended;
    expect(ended.code).not.toBe(0);
    expect(ended.stderr).toContain('Codex App Server');
    await poll(() => !isAlive(sleeper ?? 0), 5_000, `sleep ${seconds} to end with codex`);
  }, 90_000);

  it('a cancelled Codex turn records the command that ran, noting it may still have been running', async () => {
    const seconds = String(4000 + Math.floor(Math.random() * 900));
    pushSleep(seconds);
    const forge = codexRun('Sleep and be cancelled');
    await commandStarted(forge, seconds);
    forge.child.kill('SIGTERM');
    const ended = await forge.ended;
    expect(ended.code).toBe(143);
    const sessionId = (JSON.parse(ended.stdout.split('\n')[0] ?? '{}') as { sessionId?: string }).sessionId ?? '';
    const session = await user.session(sessionId);
    expect(session.runs.map((stored) => stored.status)).toEqual(['cancelled']);
    expect(session.messages.map((message) => message.role).slice(-2)).toEqual(['assistant', 'tool']);
    expect(JSON.stringify(session.messages.at(-2))).toContain(`sleep ${seconds}`);
    expect(toolResultTexts(session.messages).at(-1)).toBe(
      'The turn was cancelled before this command finished; it may still be running.',
    );
    await poll(() => processesRunning(['sleep', seconds]).length === 0, 5_000, 'the command to end');
  }, 90_000);
});
