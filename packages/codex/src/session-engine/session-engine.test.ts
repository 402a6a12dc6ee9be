import { rm } from 'node:fs/promises';
import path from 'node:path';
import { createInstructionSnapshot, DEFAULT_CONTEXT_POLICY, type EventEnvelope } from '@forge/core';
import type { EngineEventEnvelope } from '@forge/persistence';
import { openSessionHandle, type EngineTurn, type SessionHandle } from '@forge/sessions';
import { createApprovalGate } from '@forge/tools';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CodexBinaryMissingError } from '../errors.js';
import {
  createCodexDirectories,
  writeLoopbackConfig,
  type CodexSandboxDirectories,
} from '../testing/codex-harness.test-helpers.js';
import {
  assistantMessage,
  startLoopbackResponsesServer,
  type LoopbackResponsesServer,
} from '../testing/loopback-responses.test-helpers.js';
import { CODEX_ENGINE_PROMPT, createCodexSessionEngine, type CodexSessionEngineOptions } from './index.js';

/*
 * The Codex engine as a library, without the CLI: the real Codex binary (the @openai/codex dev
 * dependency), configured through CODEX_HOME/config.toml to use the loopback Responses server on
 * 127.0.0.1, running turns of a real session in a temporary FORGE_HOME. The CLI's
 * `--engine codex` is tested end to end in apps/cli/src/engines/codex-engine.test.ts.
 */

let directories: CodexSandboxDirectories;
let provider: LoopbackResponsesServer;
let forgeHome: string;
const opened: { close(): Promise<void> }[] = [];

beforeEach(async () => {
  directories = await createCodexDirectories();
  provider = await startLoopbackResponsesServer();
  forgeHome = path.join(directories.root, 'forge-home');
  await writeLoopbackConfig(directories.codexHome, provider.baseUrl);
});

afterEach(async () => {
  for (const resource of opened.splice(0).reverse()) await resource.close();
  await provider.close();
  await rm(directories.root, { recursive: true, force: true });
});

function engineOptions(extra: Partial<CodexSessionEngineOptions> = {}): CodexSessionEngineOptions {
  return {
    env: directories.environment,
    root: directories.workspace,
    approvals: createApprovalGate({ profile: 'read-only' }),
    profile: 'read-only',
    model: undefined,
    instructions: async () => createInstructionSnapshot(CODEX_ENGINE_PROMPT),
    context: DEFAULT_CONTEXT_POLICY,
    clientVersion: '0.0.0-test',
    ...extra,
  };
}

function engine(extra: Partial<CodexSessionEngineOptions> = {}) {
  const created = createCodexSessionEngine(engineOptions(extra));
  opened.push(created);
  return created;
}

async function session(): Promise<SessionHandle> {
  const handle = await openSessionHandle({ home: forgeHome, workspaceRoot: directories.workspace });
  opened.push(handle);
  return handle;
}

/** A turn that records what the engine reported: core events, Codex-only events, notes. */
function turn(request: string) {
  const events: EventEnvelope[] = [];
  const engineEvents: EngineEventEnvelope[] = [];
  const notes: string[] = [];
  const options: EngineTurn = {
    request,
    approvals: createApprovalGate({ profile: 'read-only' }),
    signal: new AbortController().signal,
    onEvent: (envelope) => events.push(envelope),
    onEngineEvent: (envelope) => engineEvents.push(envelope),
    onNote: (text) => notes.push(text),
  };
  const selected = () => engineEvents.flatMap(({ event }) => (event.type === 'codex.thread.selected' ? [event] : []));
  return { options, events, notes, selected };
}

/** The user texts Codex sent in request `index` (its own history and the new input), without its harness blocks. */
function userTexts(index: number): string[] {
  return (provider.requests[index]?.body.input ?? [])
    .flatMap((item) =>
      item['type'] === 'message' && item['role'] === 'user'
        ? [(item['content'] as { text?: string }[]).map((part) => part.text ?? '').join('')]
        : [],
    )
    .filter((text) => !text.startsWith('<') && !text.startsWith('#'));
}

// The real Codex binary runs commands in its own bubblewrap sandbox, which now and then fails to start on a
// loaded 2-core machine: one retry, so that only a failure that repeats fails the suite.
describe('createCodexSessionEngine', { retry: 1 }, () => {
  it('starts a thread on the first turn of a session, records it, and continues it on the next turn with only the request', async () => {
    provider.push({ items: [assistantMessage('First answer.')], usage: { inputTokens: 900, outputTokens: 10 } });
    provider.push({ items: [assistantMessage('Second answer.')], usage: { inputTokens: 950, outputTokens: 10 } });
    const codex = engine();
    const handle = await session();

    const first = turn('What is here?');
    const firstOutcome = await codex.runTurn(handle, first.options);
    expect(firstOutcome.result.status).toBe('completed');
    expect(firstOutcome.result.text).toBe('First answer.');
    expect(first.selected().map((event) => event.how)).toEqual(['started']);
    // The first turn has no earlier turns: the note says so instead of claiming Codex holds some.
    expect(first.notes.filter((note) => note.includes('Codex holds the earlier turns'))).toEqual([]);
    expect(first.notes.some((note) => note.startsWith('codex: started a new Codex thread with the request'))).toBe(
      true,
    );
    // Forge's instructions reach Codex as the new thread's developer instructions.
    expect(JSON.stringify(provider.requests[0]?.body)).toContain(CODEX_ENGINE_PROMPT.split('\n')[0]);
    expect(first.events.map(({ event }) => event.type)).toContain('run.completed');
    const recorded = handle.transcript().runs.at(-1)?.engine;
    expect(recorded).toMatchObject({ name: 'codex', thread: { model: 'gpt-5.5' } });
    const threadId = recorded?.thread?.id;
    expect(threadId).toEqual(expect.any(String));

    const second = turn('And now?');
    const secondOutcome = await codex.runTurn(handle, second.options);
    expect(secondOutcome.result.text).toBe('Second answer.');
    expect(second.selected()).toEqual([expect.objectContaining({ how: 'continued', threadId })]);
    expect(
      second.notes.some((note) => note.startsWith("codex: sent only the request to the session's Codex thread")),
    ).toBe(true);
    // Codex holds the first turn: it replays it, and Forge sent only the new request.
    expect(userTexts(1)).toEqual(['What is here?', 'And now?']);
    expect(handle.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('resumes the recorded thread on a new App Server, as after a restart', async () => {
    provider.push({ items: [assistantMessage('Before the restart.')] });
    provider.push({ items: [assistantMessage('After the restart.')] });
    const handle = await session();
    const before = engine();
    await before.runTurn(handle, turn('Remember the word teal.').options);
    const threadId = handle.transcript().runs.at(-1)?.engine?.thread?.id;
    await before.close();

    const after = turn('Which word?');
    const outcome = await engine().runTurn(handle, after.options);
    expect(outcome.result.text).toBe('After the restart.');
    expect(after.selected()).toEqual([expect.objectContaining({ how: 'resumed', threadId })]);
    expect(userTexts(1)).toEqual(['Remember the word teal.', 'Which word?']);
  });

  it('continues the thread of unstored turns while its server runs, storing nothing', async () => {
    provider.push({ items: [assistantMessage('One.')] });
    provider.push({ items: [assistantMessage('Two.')] });
    const codex = engine();
    const first = turn('Count with me.');
    expect((await codex.runTurn(undefined, first.options)).result.text).toBe('One.');
    const second = turn('Next?');
    expect((await codex.runTurn(undefined, second.options)).result.text).toBe('Two.');
    expect(first.selected().map((event) => event.how)).toEqual(['started']);
    expect(second.selected().map((event) => event.how)).toEqual(['continued']);
    expect(userTexts(1)).toEqual(['Count with me.', 'Next?']);
  });

  it('hands a missing binary to the host as its own error, before anything starts', async () => {
    const missing = path.join(directories.root, 'no-codex');
    class HostError extends Error {}
    expect(() =>
      createCodexSessionEngine(
        engineOptions({
          env: { ...directories.environment, FORGE_CODEX_BIN: missing },
          startError: (error) => (CodexBinaryMissingError.isInstance(error) ? new HostError(error.message) : error),
        }),
      ),
    ).toThrow(HostError);
    expect(() =>
      createCodexSessionEngine(engineOptions({ env: { ...directories.environment, FORGE_CODEX_BIN: missing } })),
    ).toThrow(CodexBinaryMissingError);
    expect(provider.requests).toHaveLength(0);
  });
});
