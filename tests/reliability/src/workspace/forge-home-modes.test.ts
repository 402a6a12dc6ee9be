import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInstructionSnapshot, sha256Hex } from '@forge/core';
import { ScriptedModel } from '@forge/core/testing';
import { runCli } from '@forge/cli/testing';
import { MAIN_LANE, OpaqueStateStore } from '@forge/persistence';
import { openSessionHandle } from '@forge/sessions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageFile } from '../support/package-files.js';
import { useTemporaryDirectories } from '../support/temporary-directories.js';
import { walkTree } from '../support/tree-files.js';

/*
 * Issue 10, point 6 (seed 004): everything Forge writes under FORGE_HOME is private to the user —
 * directories 0700, files 0600 — whatever the umask. The suite runs with umask 000, so any file
 * created without an explicit mode shows up as world-readable.
 */

const temporaryDirectory = useTemporaryDirectories();
let previousUmask = 0;

beforeAll(() => {
  previousUmask = process.umask(0o000);
});
afterAll(() => {
  process.umask(previousUmask);
});

describe('file modes under FORGE_HOME', () => {
  it('are 0700 for directories and 0600 for files after runs, a resume, an import, a compaction, traces and opaque state', async () => {
    const home = join(await temporaryDirectory('modes'), 'forge-home');
    const workspace = await temporaryDirectory('modes-workspace');
    await writeFile(join(workspace, 'notes.txt'), 'hello\n');
    const env = { FORGE_HOME: home };
    const model = new ScriptedModel([
      { toolCalls: [{ toolName: 'read_file', input: { path: 'notes.txt' }, toolCallId: 'call_modes_read' }] },
      { text: `Read it. ${'The notes say hello. '.repeat(300)}` },
      { text: `Again. ${'Still hello. '.repeat(300)}` },
    ]);
    const first = await runCli(['run', '--model', 'test:modes', '--cwd', workspace, 'Read notes.txt'], {
      cwd: workspace,
      env,
      models: { modes: model },
    });
    expect(first.code, first.stderr).toBe(0);
    const sessionId = /session: (\S+)/.exec(first.stderr)?.[1] ?? '';
    const second = await runCli(
      ['run', '--model', 'test:modes', '--resume', sessionId, '--cwd', workspace, 'Once more'],
      { cwd: workspace, env, models: { modes: model } },
    );
    expect(second.code, second.stderr).toBe(0);
    const rollout = packageFile('@forge/codex', 'src', 'rollout', 'fixtures', 'legacy-0.46.jsonl');
    const imported = await runCli(['import', 'codex', rollout, '--session', '--cwd', workspace], {
      cwd: workspace,
      env,
    });
    expect(imported.code, imported.stderr).toBe(0);

    const handle = await openSessionHandle({ home, sessionId });
    try {
      const compacted = await handle.compact({
        model: new ScriptedModel([]),
        instructions: createInstructionSnapshot('Compact.'),
        context: { recentTailTokens: 10 },
      });
      expect(compacted.outcome.kind, JSON.stringify(compacted.outcome)).toBe('compacted');
    } finally {
      await handle.close();
    }
    const items = [{ type: 'compaction', encrypted_content: 'opaque' }];
    const serialized = JSON.stringify(items);
    await new OpaqueStateStore({ directory: join(home, 'state', 'native-compaction'), persist: true }).save(
      { sessionId, lane: MAIN_LANE },
      {
        provider: 'openai',
        modelId: 'gpt-5.1',
        itemHash: sha256Hex(serialized),
        bytes: serialized.length,
        items,
        sourceHash: sha256Hex('s'),
        sourceMessages: 1,
        previousItemHash: null,
      },
    );

    const entries = await walkTree(home);
    expect(entries.some((entry) => entry.relative.startsWith('runs/'))).toBe(true);
    expect(entries.some((entry) => entry.relative.startsWith('state/native-compaction/'))).toBe(true);
    expect(
      entries.filter((entry) => entry.relative.startsWith('sessions/') && !entry.directory).length,
    ).toBeGreaterThanOrEqual(2);
    const wrong = entries
      .filter((entry) => entry.mode !== (entry.directory ? 0o700 : 0o600))
      .map((entry) => `${entry.relative} ${entry.mode.toString(8)}`);
    expect(wrong).toEqual([]);
  });

  it('leaves a FORGE_HOME the user made alone but creates what it needs inside it privately', async () => {
    const home = join(await temporaryDirectory('modes-existing'), 'home');
    await mkdir(home, { mode: 0o755 });
    const model = new ScriptedModel([{ text: 'ok' }]);
    const outcome = await runCli(['run', '--model', 'test:ok', 'hi'], {
      cwd: home,
      env: { FORGE_HOME: home },
      models: { ok: model },
    });
    expect(outcome.code, outcome.stderr).toBe(0);
    const wrong = (await walkTree(home))
      .filter((entry) => entry.mode !== (entry.directory ? 0o700 : 0o600))
      .map((entry) => `${entry.relative} ${entry.mode.toString(8)}`);
    expect(wrong).toEqual([]);
  });
});
