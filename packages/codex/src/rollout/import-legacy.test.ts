import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findUnpairedToolCalls, messageSchema, sha256Hex } from '@forge/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importCodexRollout, serializeImportState } from './import-rollout.js';

const fixtures = join(import.meta.dirname, 'fixtures');
const legacy = join(fixtures, 'legacy-0.46.jsonl');
const bare = join(fixtures, 'legacy-bare.jsonl');

describe('importing older-generation rollouts (hand-written fixtures, never edited)', () => {
  it('reads a 0.46-era file: echoes dropped, harness context skipped, legacy outputs parsed', async () => {
    const { messages, state } = await importCodexRollout(legacy);

    const firstTurn = ['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant'];
    const secondTurn = ['user', 'assistant', 'tool', 'assistant', 'tool'];
    expect(messages.map((message) => message.role)).toEqual([...firstTurn, ...secondTurn]);
    expect(messages[0]).toEqual({ role: 'user', content: 'Fix the failing parser test' });
    expect(messages[7]).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Fixed the off-by-one in src/parser.ts; the tests pass.' }],
    });
    for (const message of messages) expect(messageSchema.safeParse(message).success).toBe(true);
    expect(findUnpairedToolCalls(messages)).toEqual([]);

    expect(state.source).toMatchObject({ cliVersion: '0.46.0', generation: 'legacy', model: 'gpt-5-codex' });
    expect(state.skipped).toMatchObject({ harnessMessages: 2, malformedLines: 0, unknownLines: 0, tornTail: false });
    expect(state.task).toEqual({
      text: 'Now update the changelog',
      evidence: { source: 'user', line: 20, messageIndex: 8 },
    });
    expect(state.commands.recent.map(({ command, exitCode, status }) => ({ command, exitCode, status }))).toEqual([
      { command: 'npm test', exitCode: 1, status: 'failed' },
      { command: 'npm test', exitCode: 0, status: 'succeeded' },
      { command: 'rm -rf dist', exitCode: null, status: 'declined' },
      { command: 'cat CHANGELOG.md', exitCode: null, status: 'no-result' },
    ]);
    expect(state.failures.recent.map((failure) => `${failure.kind}: ${failure.what} / ${failure.why}`)).toEqual([
      'command: npm test / exit code 1: FAIL src/parser.test.ts',
      'command: rm -rf dist / declined by the approval policy',
      'turn: the turn / aborted (interrupted)',
    ]);
    expect(state.artifacts).toEqual([
      {
        uri: 'src/parser.ts',
        kind: 'file',
        lastChange: 'update',
        lastPatchStatus: 'applied',
        patches: 1,
        lastObservedSeq: 13,
        lastMessageIndex: 4,
        hash: null,
        hashStatus: 'unknown',
      },
    ]);
    expect(state.compactions.recent).toEqual([
      expect.objectContaining({
        seq: 19,
        kind: 'legacy',
        transcriptIndex: 8,
        opaqueSha256: null,
        replacementItems: null,
      }),
    ]);
    expect(state.tokenUsage.latest?.total.inputTokens).toBe(11000);
    expect(state.workspace).toEqual({ root: '/nonexistent/forge-fixture/parser-project', hashed: false });
    const interrupted = messages.at(-1);
    expect(interrupted?.role === 'tool' && interrupted.content[0]?.output.type).toBe('error-text');
  });

  it('reads a bare pre-wrapper file with local_shell_call and a torn last line', async () => {
    const { messages, state } = await importCodexRollout(bare);
    expect(state.skipped.tornTail).toBe(true);
    expect(state.skipped.malformedLines).toBe(0);
    expect(state.source).toMatchObject({
      sessionId: '5973b6c0-94b8-487b-a530-2aeb6098ae0e',
      generation: 'legacy',
      cliVersion: null,
    });
    expect(state.task?.text).toBe('List the files and add a notes file');
    expect(state.commands.recent).toEqual([
      expect.objectContaining({ callId: 'call_ls', command: 'ls -la', exitCode: 0, status: 'succeeded' }),
    ]);
    expect(state.artifacts).toEqual([
      expect.objectContaining({ uri: 'NOTES.md', lastChange: 'add', lastPatchStatus: 'applied' }),
    ]);
    expect(findUnpairedToolCalls(messages)).toEqual([]);
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool']);
  });
});

describe('the import state and view are byte-stable (golden files)', () => {
  it.each([
    ['legacy-0.46', legacy],
    ['legacy-bare', bare],
  ])('%s matches its golden state and view', async (name, path) => {
    const imported = await importCodexRollout(path);
    expect(serializeImportState(imported.state)).toBe(await readFile(join(fixtures, `${name}.state.json`), 'utf8'));
    expect(imported.view).toBe(await readFile(join(fixtures, `${name}.view.txt`), 'utf8'));
  });
});

describe('hashing touched files from the workspace', () => {
  let workspace: string;
  beforeAll(async () => {
    workspace = await mkdtemp(join(tmpdir(), 'forge-codex-workspace-'));
  });
  afterAll(async () => {
    await rm(workspace, { recursive: true, force: true });
  });

  it('hashes a file that exists, reports one that is gone as absent, and changes when the file changes', async () => {
    await writeFile(join(workspace, 'NOTES.md'), 'notes\n');
    const present = await importCodexRollout(bare, { workspaceRoot: workspace });
    expect(present.state.artifacts[0]).toMatchObject({ hash: sha256Hex('notes\n'), hashStatus: 'current' });
    expect(present.view).toMatch(/- file: NOTES\.md \(hash=sha256:[0-9a-f]{12}; add, patch applied\)/);

    await writeFile(join(workspace, 'NOTES.md'), 'notes, edited later\n');
    const changed = await importCodexRollout(bare, { workspaceRoot: workspace });
    expect(changed.state.artifacts[0]?.hash).not.toBe(present.state.artifacts[0]?.hash);

    await rm(join(workspace, 'NOTES.md'));
    const gone = await importCodexRollout(bare, { workspaceRoot: workspace });
    expect(gone.state.artifacts[0]).toMatchObject({ hash: null, hashStatus: 'missing' });
    expect(gone.view).toContain('- file: NOTES.md (absent from the workspace now; add, patch applied)');
  });

  it('streams messages to onMessage without keeping them', async () => {
    const streamed: unknown[] = [];
    const imported = await importCodexRollout(legacy, { onMessage: (message) => streamed.push(message) });
    expect(imported.messages).toEqual([]);
    expect(streamed).toHaveLength(imported.state.transcript.messages);
  });

  it('says which file it could not read', async () => {
    await expect(importCodexRollout(join(workspace, 'missing.jsonl'))).rejects.toThrow(
      /Cannot read the Codex rollout .*missing\.jsonl/,
    );
  });
});
