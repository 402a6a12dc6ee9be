import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { loadConfig } from '@forge/config';
import { createInstructionSnapshot, ForgeError, InvalidInputError, runAgent, sha256Hex } from '@forge/core';
import { ScriptedModel } from '@forge/core/testing';
import { runCli } from '@forge/cli/testing';
import { listSessions, loadTranscript, OpaqueStateStore, readTrace, traceFile } from '@forge/persistence';
import { openSessionHandle } from '@forge/sessions';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTemporaryDirectories } from '../support/temporary-directories.js';
import { walkTree } from '../support/tree-files.js';

/*
 * Issue 10, point 6: ids become file names, so an id outside [A-Za-z0-9_-]{1,128} is refused
 * wherever one enters — command-line flags, the configuration, session files, the opaque state
 * store, run and session ids of the API — and nothing is ever created outside FORGE_HOME.
 */

const temporaryDirectory = useTemporaryDirectories();
const UNSAFE_IDS = [
  '../escape',
  '../../etc/passwd',
  'a/b',
  'a\\b',
  '.',
  '..',
  '',
  ' ',
  'has space',
  'semi;colon',
  'nul\u0000byte',
  'ünïcode',
  'x'.repeat(129),
  '-'.repeat(200),
  'new\nline',
];
let base = '';
let home = '';
let workspace = '';

beforeAll(async () => {
  base = await temporaryDirectory('unsafe-ids');
  home = join(base, 'home');
  workspace = join(base, 'workspace');
  await mkdir(workspace, { recursive: true });
  const model = new ScriptedModel([{ text: 'ok' }]);
  const outcome = await runCli(['run', '--model', 'test:ok', '--cwd', workspace, 'hello'], {
    cwd: workspace,
    env: { FORGE_HOME: home },
    models: { ok: model },
  });
  expect(outcome.code).toBe(0);
});

/** Everything under the temporary base: nothing may appear outside FORGE_HOME and the workspace. */
async function strayEntries(): Promise<string[]> {
  return (await readdir(base)).filter((name) => name !== 'home' && name !== 'workspace');
}

describe('ids outside the allowed pattern are refused', () => {
  it.each(UNSAFE_IDS.filter((id) => !id.includes('\u0000')))('on the command line: %j', async (id) => {
    for (const args of [
      ['run', '--model', 'scripted:demo', '--resume', id, '--cwd', workspace, 'hi'],
      ['sessions', 'show', id],
      ['compact', '--dry-run', '--session', id],
      ['inspect', id],
    ]) {
      const outcome = await runCli(args, { cwd: workspace, env: { FORGE_HOME: home } });
      expect(outcome.code, `${args.join(' ')}: ${outcome.stderr}`).toBe(2);
      expect(outcome.stderr).toMatch(/^forge: /);
    }
    expect(await strayEntries()).toEqual([]);
  });

  it.each(UNSAFE_IDS)('by the API and the stores: %j', async (id) => {
    const refused = async (what: string, work: () => Promise<unknown>) => {
      const error = await work().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(InvalidInputError.isInstance(error), `${what} accepted ${JSON.stringify(id)}`).toBe(true);
    };
    await refused('loadTranscript', () => loadTranscript(home, id));
    await refused('openSessionHandle', () => openSessionHandle({ home, sessionId: id }));
    await refused('traceFile', async () => traceFile(home, id));
    await refused('readTrace', async () => {
      for await (const entry of readTrace(home, id)) void entry;
    });
    const store = new OpaqueStateStore({ directory: join(home, 'state', 'native-compaction'), persist: true });
    const items = [{ type: 'message' }];
    const state = {
      provider: 'openai',
      modelId: 'm',
      itemHash: sha256Hex(JSON.stringify(items)),
      bytes: JSON.stringify(items).length,
      items,
      sourceHash: sha256Hex('s'),
      sourceMessages: 1,
      previousItemHash: null,
    };
    await refused('opaque state session id', () => store.save({ sessionId: id, lane: 'main' }, state));
    await refused('opaque state lane', () => store.save({ sessionId: 'session_ok', lane: id }, state));
    await refused('opaque state replay', () =>
      store.forReplay({ sessionId: id, lane: 'main' }, { provider: 'openai', modelId: 'm' }),
    );
    await refused('runAgent run id', () =>
      runAgent({
        model: new ScriptedModel([{ text: 'x' }]),
        request: 'x',
        instructions: createInstructionSnapshot('x'),
        runId: id,
      }),
    );
    await refused('runAgent session id', () =>
      runAgent({
        model: new ScriptedModel([{ text: 'x' }]),
        request: 'x',
        instructions: createInstructionSnapshot('x'),
        session: { id: id },
      }),
    );
    expect(await strayEntries()).toEqual([]);
  });

  it('in the configuration: compatible model and MCP server names', async () => {
    const configHome = await temporaryDirectory('unsafe-ids-config');
    for (const name of ['../evil', 'a b', 'x'.repeat(65)]) {
      await writeFile(
        join(configHome, 'config.json'),
        JSON.stringify({
          schemaVersion: 1,
          models: [{ name, baseURL: 'http://127.0.0.1:1/v1', modelId: 'm', contextWindowTokens: 8000 }],
        }),
      );
      await expect(loadConfig({ forgeHome: configHome, workspaceRoot: workspace, env: {} })).rejects.toSatisfy(
        (error: unknown) => ForgeError.isInstance(error),
      );
      await writeFile(
        join(configHome, 'config.json'),
        JSON.stringify({ schemaVersion: 1, mcpServers: [{ name, command: 'node' }] }),
      );
      await expect(loadConfig({ forgeHome: configHome, workspaceRoot: workspace, env: {} })).rejects.toSatisfy(
        (error: unknown) => ForgeError.isInstance(error),
      );
    }
  });

  it('in session files: directories with unsafe names are not sessions, and records with unsafe run ids are refused', async () => {
    const sessions = join(home, 'sessions');
    await mkdir(join(sessions, 'has space'), { recursive: true });
    await writeFile(join(sessions, 'has space', 'session.jsonl'), '');
    const listed = await listSessions(home);
    expect(listed.map((session) => session.id).filter((id) => !/^[A-Za-z0-9_-]{1,128}$/.test(id))).toEqual([]);

    const id = 'session_unsafe_run';
    const seal = (record: object) => {
      const prefix = JSON.stringify(record).slice(0, -1);
      return `${prefix},"crc":"${crc32(prefix).toString(16).padStart(8, '0')}"}\n`;
    };
    const at = '2026-01-01T00:00:00.000Z';
    await mkdir(join(sessions, id));
    await writeFile(
      join(sessions, id, 'session.jsonl'),
      seal({ v: 2, seq: 0, type: 'session', at, id, createdAt: at, workspaceRoot: null }) +
        seal({ v: 2, seq: 1, type: 'run.started', at, runId: '../../../outside' }) +
        seal({
          v: 2,
          seq: 2,
          type: 'message',
          at,
          index: 0,
          runId: '../../../outside',
          message: { role: 'user', content: 'hi' },
        }),
    );
    const loaded = await loadTranscript(home, id).then(
      (transcript) => transcript.runs.map((run) => run.runId),
      (error: unknown) => (ForgeError.isInstance(error) ? error.code : String(error)),
    );
    expect(loaded).toBe('corrupt_file');
    const inspected = await runCli(['inspect', id], { cwd: base, env: { FORGE_HOME: home } });
    expect(inspected.code).not.toBe(0);
    expect(inspected.stderr).toMatch(/^forge: error: /);
    expect(await strayEntries()).toEqual([]);
    const entries = await walkTree(home);
    expect(entries.filter((entry) => entry.relative.includes('outside'))).toEqual([]);
  });
});
