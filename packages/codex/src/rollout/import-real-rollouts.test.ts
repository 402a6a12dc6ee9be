import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInstructionSnapshot, findUnpairedToolCalls, type Message } from '@forge/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactCodexThread } from '../engine/compact-thread.js';
import { runCodexTurn } from '../engine/run-codex-turn.js';
import {
  createCodexDirectories,
  findRollouts,
  runCodexExec,
  startCodexHarness,
  type CodexSandboxDirectories,
} from '../testing/codex-harness.test-helpers.js';
import {
  applyPatchCall,
  assistantMessage,
  execCommandCall,
  reasoningItem,
  startLoopbackResponsesServer,
} from '../testing/loopback-responses.test-helpers.js';
import { renderCheckpointView, validateCheckpoint } from '@forge/core/checkpoint';
import { ImportCheckpointBuilder } from './import-checkpoint.js';
import { importCodexRollout, serializeImportState } from './import-rollout.js';

/*
 * Rollouts written by the real Codex 0.169 binary in this test (exec and app-server; tool calls,
 * a patch, reasoning, local and remote compaction), imported back into Forge.
 */

const view = { instructions: createInstructionSnapshot('Be brief.'), history: [] };
/** The user's three requests of each app-server session, each stating a constraint. */
const THREE_TURNS = [
  'Echo one and fix the failing test in src/sum.js; do not change the test file.',
  'Now finish the CLI entry point. Use only CommonJS, no new dependencies.',
  'Last, write the README. Keep the public API unchanged.',
] as const;
const allow = { check: async () => ({ kind: 'allow' as const }) };

let execDirectories: CodexSandboxDirectories;
let execRollout: string;
let localRollout: string;
let remoteRollout: string;
let appServerRoots: string[] = [];

beforeAll(async () => {
  execDirectories = await createCodexDirectories();
  const provider = await startLoopbackResponsesServer([
    { items: [reasoningItem('List first, then write.'), execCommandCall('call_ls', 'echo listing; exit 2')] },
    {
      items: [
        applyPatchCall('call_patch', '*** Begin Patch\n*** Add File: src/app.txt\n+version one\n*** End Patch\n'),
      ],
    },
    { items: [assistantMessage('Created src/app.txt.')] },
  ]);
  try {
    // Not Codex's own sandbox: with bubblewrap installed it mounts a fresh /tmp, which hides the
    // helper Codex links under this temporary CODEX_HOME, and every command then exits 1.
    await runCodexExec(execDirectories, provider.baseUrl, 'Create src/app.txt', ['--sandbox', 'danger-full-access']);
  } finally {
    await provider.close();
  }
  [execRollout = ''] = await findRollouts(execDirectories.codexHome);

  for (const providerName of ['mock', 'OpenAI']) {
    const harness = await startCodexHarness({
      providerName,
      steps: [
        { items: [execCommandCall('call_echo', 'echo one')] },
        { items: [assistantMessage('First turn done.')] },
        { items: [assistantMessage('Summary: echoed one.')] },
        { items: [assistantMessage('Second turn done.')] },
        { items: [assistantMessage('Third turn done.')] },
      ],
    });
    appServerRoots.push(harness.root);
    const first = await runCodexTurn({
      server: harness.server,
      thread: { cwd: harness.workspace },
      view,
      request: THREE_TURNS[0],
      approvals: allow,
    });
    await compactCodexThread(harness.server, first.codex.threadId);
    await runCodexTurn({
      server: harness.server,
      thread: { threadId: first.codex.threadId },
      view,
      request: THREE_TURNS[1],
      approvals: allow,
    });
    await runCodexTurn({
      server: harness.server,
      thread: { threadId: first.codex.threadId },
      view,
      request: THREE_TURNS[2],
      approvals: allow,
    });
    const [rollout = ''] = await findRollouts(harness.codexHome);
    const copy = join(execDirectories.root, `app-server-${providerName}.jsonl`);
    await writeFile(copy, await readFile(rollout));
    if (providerName === 'mock') localRollout = copy;
    else remoteRollout = copy;
    await harness.dispose();
  }
}, 60_000);

afterAll(async () => {
  await rm(execDirectories.root, { recursive: true, force: true });
  appServerRoots = [];
});

function requestTexts(messages: readonly Message[]): string[] {
  return messages.flatMap((message) => (message.role === 'user' ? [message.content] : []));
}

// The real Codex binary runs commands in its own bubblewrap sandbox, which now and then fails to start on a
// loaded 2-core machine: one retry, so that only a failure that repeats fails the suite.
describe('importing rollouts written by the real Codex binary', { retry: 1 }, () => {
  it('turns a codex exec rollout into a transcript with paired tool calls, commands, files and usage', async () => {
    const imported = await importCodexRollout(execRollout);
    const { state, messages } = imported;

    expect(requestTexts(messages)).toEqual(['Create src/app.txt']);
    expect(findUnpairedToolCalls(messages)).toEqual([]);
    expect(
      messages.some(
        (message) => message.role === 'assistant' && message.content.some((part) => part.type === 'reasoning'),
      ),
    ).toBe(true);
    expect(state.source).toMatchObject({
      cliVersion: '0.169.0',
      generation: 'current',
      cwd: execDirectories.workspace,
    });
    expect(state.task).toEqual({
      text: 'Create src/app.txt',
      evidence: { source: 'user', line: expect.any(Number), messageIndex: 0 },
    });
    expect(state.commands.recent).toEqual([
      expect.objectContaining({
        callId: 'call_ls',
        command: 'echo listing; exit 2',
        exitCode: 2,
        status: 'failed',
        label: 'historical',
      }),
    ]);
    expect(state.failures.recent[0]).toMatchObject({ kind: 'command', what: 'echo listing; exit 2' });
    expect(state.artifacts).toEqual([
      expect.objectContaining({
        uri: 'src/app.txt',
        lastChange: 'add',
        lastPatchStatus: 'applied',
        hashStatus: 'current',
      }),
    ]);
    const expectedHash = (await import('node:crypto')).createHash('sha256').update('version one\n').digest('hex');
    expect(state.artifacts[0]?.hash).toBe(expectedHash);
    expect(state.tokenUsage.reports).toBeGreaterThanOrEqual(3);
    expect(state.skipped).toMatchObject({ malformedLines: 0, tornTail: false, orphanToolOutputs: 0 });
    expect(state.skipped.harnessMessages).toBeGreaterThan(0);
    expect(imported.view).toContain('- file: src/app.txt (hash=sha256:');
    expect(imported.view).toContain('- exit 2: echo listing; exit 2');
  });

  it('marks a touched file SUSPECT once the workspace no longer has it', async () => {
    const imported = await importCodexRollout(execRollout, { workspaceRoot: join(execDirectories.root, 'elsewhere') });
    expect(imported.state.artifacts[0]).toMatchObject({ uri: 'src/app.txt', hash: null, hashStatus: 'unknown' });
    expect(imported.view).toContain('hash unknown: facts about it are SUSPECT');
  });

  it('records a local compaction boundary from an app-server rollout and keeps the transcript lossless', async () => {
    const { state, messages } = await importCodexRollout(localRollout);
    expect(requestTexts(messages)).toEqual([...THREE_TURNS]);
    expect(state.compactions.recent).toEqual([
      expect.objectContaining({
        kind: 'local',
        summarySha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        opaqueSha256: null,
      }),
    ]);
    expect(state.compactions.recent[0]?.transcriptIndex).toBeGreaterThan(0);
    expect(state.task?.text).toBe(THREE_TURNS[2]);
    expect(state.commands.recent).toEqual([
      expect.objectContaining({ command: 'echo one', exitCode: 0, status: 'succeeded' }),
    ]);
    expect(findUnpairedToolCalls(messages)).toEqual([]);
  });

  it('records a remote compaction by the hash of its opaque item only', async () => {
    const imported = await importCodexRollout(remoteRollout);
    expect(imported.state.compactions.recent).toEqual([
      expect.objectContaining({ kind: 'remote', opaqueSha256: expect.stringMatching(/^[0-9a-f]{64}$/) }),
    ]);
    expect(serializeImportState(imported.state)).not.toContain('opaque-compaction');
    expect(imported.view).toContain('remote, after message');
  });

  it('gives a checkpoint naming all three user requests, the latest marked, and the constraints they state', async () => {
    for (const rollout of [localRollout, remoteRollout]) {
      const builder = new ImportCheckpointBuilder((text) => text);
      const { state } = await importCodexRollout(rollout, { onMessage: (message) => builder.add(message) });
      const checkpoint = builder.finish(state);
      expect(validateCheckpoint(checkpoint, builder.messageCount)).toMatchObject({ ok: true });
      const text = renderCheckpointView(checkpoint);
      expect(text).toContain(`- earlier user request (user#0): ${THREE_TURNS[0]}`);
      expect(text).toMatch(new RegExp(`- earlier user request \\(user#\\d+\\): ${THREE_TURNS[1].replace('.', '\\.')}`));
      expect(text).toMatch(
        new RegExp(`- latest user request \\(user#\\d+\\):\\n  ${THREE_TURNS[2].replace('.', '\\.')}`),
      );
      expect(text).toContain('- do not change the test file (from user#0)');
      expect(text).toMatch(/- Use only CommonJS, no new dependencies \(from user#\d+\)/);
      expect(text).toMatch(/- Keep the public API unchanged \(from user#\d+\)/);
      expect(text).toContain('[DIGEST]');
      expect(text).toContain(`#0 user: ${THREE_TURNS[0]}`);
    }
  });

  it('gives byte-equal state and view when the same rollout is imported twice', async () => {
    for (const rollout of [execRollout, localRollout, remoteRollout]) {
      const first = await importCodexRollout(rollout);
      const second = await importCodexRollout(rollout);
      expect(serializeImportState(second.state)).toBe(serializeImportState(first.state));
      expect(second.view).toBe(first.view);
      expect(JSON.stringify(second.messages)).toBe(JSON.stringify(first.messages));
    }
  });
});
