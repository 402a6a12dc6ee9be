import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findRollouts, TEST_MODEL, writeLoopbackConfig } from '@forge/codex/test-helpers/codex-harness';
import {
  assistantMessage,
  execCommandCall,
  startLoopbackResponsesServer,
  type LoopbackResponsesServer,
} from '@forge/codex/test-helpers/loopback-responses';
import { sessionIdOf, toolResultTexts, useBundle, userSetup, type UserSetup } from './support/bundle.js';
import { childrenOf, isAlive } from './support/processes.js';

/*
 * The Codex engine from the bundle: the real `codex` binary of the @openai/codex package,
 * configured through CODEX_HOME/config.toml as a user would, talking to a loopback Responses
 * server; proxies point at a closed port so nothing but 127.0.0.1 is reachable. Then the rollout
 * that Codex wrote is imported with `forge import codex`, and the older-generation fixture is
 * imported byte for byte as its golden checkpoint view says.
 */

const fixture = useBundle('bundle-codex');
const codexFixtures = path.join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  'packages',
  'codex',
  'src',
  'rollout',
  'fixtures',
);
const deadProxy = 'http://127.0.0.1:9';

let provider: LoopbackResponsesServer;
let user: UserSetup;
let codexEnv: Record<string, string>;

beforeEach(async () => {
  provider = await startLoopbackResponsesServer();
  user = await userSetup(fixture, 'codex');
  const codexHome = path.join(user.forgeHome, '..', 'codex-home');
  await mkdir(codexHome);
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
});

// The real Codex binary runs commands in its own bubblewrap sandbox, which now and then fails to start on a
// loaded 2-core machine: one retry, so that only a failure that repeats fails the suite.
describe('the bundled forge with the Codex engine', { retry: 1 }, () => {
  it('runs a turn on the real Codex binary, runs its command under workspace-auto, stores and traces the session', async () => {
    provider.push(
      { items: [execCommandCall('call_write', 'printf "made by codex" > made.txt')] },
      { items: [assistantMessage('I wrote made.txt.')], usage: { inputTokens: 2100, outputTokens: 12 } },
    );
    const run = await user.forge(
      ['run', '--engine', 'codex', '--model', `codex:${TEST_MODEL}`, '--approval', 'workspace-auto', 'Write the file'],
      codexEnv,
    );
    expect(run.stderr).not.toContain('error');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('I wrote made.txt.');
    expect(await readFile(path.join(user.workspace, 'made.txt'), 'utf8')).toBe('made by codex');
    // A new session's thread receives the request alone (Forge's instructions go in as developer instructions).
    expect(provider.requests[0]?.body.input.at(-1)).toMatchObject({
      role: 'user',
      content: [{ type: 'input_text', text: 'Write the file' }],
    });

    const session = await user.session(sessionIdOf(run.stderr));
    expect(session.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(toolResultTexts(session.messages)).toHaveLength(1);
    expect(session.runs.map((stored) => [stored.status, stored.model?.provider])).toEqual([['completed', 'codex']]);
    const inspected = await user.forge(['inspect', '--last', '--json']);
    expect(inspected.code).toBe(0);
    expect(inspected.stdout).toContain('"engine":"codex"');

    // Codex wrote a rollout of the thread; Forge imports it as a session of its own.
    const [rollout] = await findRollouts(codexEnv.CODEX_HOME ?? '');
    if (rollout === undefined) throw new Error('Codex wrote no rollout');
    const imported = await user.forge(['import', 'codex', rollout, '--session', '--cwd', user.workspace]);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain('made.txt');
    const importedId = /^session: (session_[A-Za-z0-9_-]+) /m.exec(imported.stderr)?.[1];
    if (importedId === undefined) throw new Error(`no session id on stderr:\n${imported.stderr}`);
    const importedSession = await user.session(importedId);
    expect(
      importedSession.messages.some(
        (message) => message.role === 'user' && JSON.stringify(message.content).includes('Write the file'),
      ),
    ).toBe(true);
    expect(importedSession.checkpoint?.checkpoint).toMatchObject({
      strategy: 'forge-state',
      state: { task: { text: 'Write the file' } },
    });
  }, 60_000);

  it('SIGTERM during a Codex turn cancels it, records the run, releases the session, ends the App Server and exits 143', async () => {
    provider.push({ hang: true });
    const forge = user.start(
      ['run', '--engine', 'codex', '--model', `codex:${TEST_MODEL}`, '--json', 'Take forever'],
      codexEnv,
    );
    await provider.waitForRequests(1);
    const children = childrenOf(forge.child.pid ?? 0);
    expect(children.length).toBeGreaterThan(0);

    forge.child.kill('SIGTERM');
    const ended = await forge.ended;
    expect(ended.code).toBe(143);
    expect(ended.stderr).toContain('forge: cancelled by SIGTERM');
    expect(children.filter(isAlive)).toEqual([]);
    const sessionId = (JSON.parse(ended.stdout.split('\n')[0] ?? '{}') as { sessionId?: string }).sessionId ?? '';
    const session = await user.session(sessionId);
    expect(session.runs.map((stored) => stored.status)).toEqual(['cancelled']);
    expect(session.messages).toEqual([{ role: 'user', content: 'Take forever' }]);
    expect(existsSync(path.join(user.forgeHome, 'sessions', sessionId, 'lock'))).toBe(false);
  }, 60_000);

  it('imports the older-generation rollout fixture exactly as its golden checkpoint view says', async () => {
    const outcome = await user.forge(['import', 'codex', path.join(codexFixtures, 'legacy-0.46.jsonl')]);
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toBe(await readFile(path.join(codexFixtures, 'legacy-0.46.checkpoint.txt'), 'utf8'));
  });
});
