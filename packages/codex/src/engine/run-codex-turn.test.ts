import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createInstructionSnapshot,
  findUnpairedToolCalls,
  type ApprovalGate,
  type Message,
  type ToolCallRequest,
} from '@forge/core';
import { forgeEventSchema } from '@forge/core/internals';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startCodexHarness, type CodexHarness } from '../testing/codex-harness.test-helpers.js';
import {
  applyPatchCall,
  assistantMessage,
  execCommandCall,
  reasoningItem,
} from '../testing/loopback-responses.test-helpers.js';
import type { CodexActiveView } from './active-view.js';
import { compactCodexThread } from './compact-thread.js';
import { codexOnlyEventSchema } from './event-schemas.js';
import type { CodexEventEnvelope } from './events.js';
import { runCodexTurn } from './run-codex-turn.js';
import { CodexProtocolError } from '../errors.js';

let harness: CodexHarness | undefined;
afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
});

const view: CodexActiveView = {
  instructions: createInstructionSnapshot('You are Forge. Keep answers short.'),
  history: [
    { role: 'user', content: 'What is in the repo?' },
    { role: 'assistant', content: [{ type: 'text', text: 'A README and a src folder.' }] },
  ],
};

function recordingGate(
  decide: (call: ToolCallRequest) => 'allow' | 'deny',
): ApprovalGate & { calls: ToolCallRequest[] } {
  const calls: ToolCallRequest[] = [];
  return {
    calls,
    check: async (call) => {
      calls.push(call);
      return decide(call) === 'allow' ? { kind: 'allow' } : { kind: 'deny', reason: 'policy says no' };
    },
  };
}

function toolResults(
  messages: readonly Message[],
): { toolName: string; type: string; value: string; metadata: unknown }[] {
  return messages.flatMap((message) =>
    message.role === 'tool'
      ? message.content.map((part) => ({
          toolName: part.toolName,
          type: part.output.type,
          value: String(part.output.value),
          metadata: part.metadata,
        }))
      : [],
  );
}

// The real Codex binary runs commands in its own bubblewrap sandbox, which now and then fails to start on a
// loaded 2-core machine: one retry, so that only a failure that repeats fails the suite.
describe('runCodexTurn on the real Codex App Server', { retry: 1 }, () => {
  it('sends the bounded view, reports its cost, and records the answer and Codex token usage', async () => {
    harness = await startCodexHarness({
      steps: [
        {
          items: [reasoningItem('Thinking about it'), assistantMessage('The answer is 42.')],
          usage: { inputTokens: 2000, outputTokens: 50, cachedTokens: 500, reasoningTokens: 7 },
        },
      ],
    });
    const events: CodexEventEnvelope[] = [];
    const result = await runCodexTurn({
      server: harness.server,
      thread: { cwd: harness.workspace },
      view,
      request: 'What is the answer?',
      onEvent: (envelope) => events.push(envelope),
    });

    expect(result.status).toBe('completed');
    expect(result.text).toBe('The answer is 42.');
    expect(result.messages[0]).toEqual({ role: 'user', content: 'What is the answer?' });
    expect(result.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'Thinking about it' },
        { type: 'text', text: 'The answer is 42.' },
      ],
    });

    const sent = JSON.stringify(harness.provider.requests[0]?.body.input.at(-1));
    expect(sent).toContain('[CURRENT REQUEST] 19 characters\\nWhat is the answer?');
    expect(sent).toContain('A README and a src folder.');
    // The instructions went to the new thread as developer instructions, not into the wrapper.
    expect(sent).not.toContain('[INSTRUCTIONS]');
    expect(JSON.stringify(harness.provider.requests[0]?.body)).toContain('You are Forge. Keep answers short.');

    const budgeted = events.find((envelope) => envelope.event.type === 'codex.context.budgeted')?.event;
    expect(budgeted).toMatchObject({ type: 'codex.context.budgeted', historyMessages: 2, input: 'wrapper' });
    if (budgeted?.type !== 'codex.context.budgeted') throw new Error('no Codex budget event');
    expect(budgeted.estimate.tokens).toBeGreaterThanOrEqual(Math.ceil(budgeted.estimate.bytes / 4));
    expect(budgeted.estimate.categories.history).toBeGreaterThan(0);

    expect(result.codex.codexVersion).toBe('0.169.0');
    expect(result.codex.tokenUsage).toHaveLength(1);
    expect(result.codex.tokenUsage[0]?.last).toMatchObject({
      inputTokens: 2000,
      cachedInputTokens: 500,
      outputTokens: 50,
      reasoningOutputTokens: 7,
    });
    expect(result.usage).toMatchObject({
      inputTokens: 2000,
      cacheReadTokens: 500,
      outputTokens: 50,
      reasoningTokens: 7,
    });
    expect(events.map((envelope) => envelope.sequence)).toEqual(events.map((_, index) => index));
    expect(events.at(-1)?.event.type).toBe('run.completed');
    // As a trace stores them, each event is a core event or a Codex one exactly as its schema defines it.
    const engineEvent = z.union([forgeEventSchema, codexOnlyEventSchema]);
    for (const { event } of events) {
      expect(engineEvent.safeParse(JSON.parse(JSON.stringify(event))).error?.issues ?? [], event.type).toEqual([]);
    }
    expect(events.map((envelope) => envelope.event.type)).toContain('codex.usage.recorded');
  });

  it('runs an approved command and records it as a paired tool call with its exit code', async () => {
    harness = await startCodexHarness({
      steps: [
        { items: [execCommandCall('call_ok', 'printf approved > proof.txt; echo wrote')] },
        { items: [assistantMessage('Wrote the file.')] },
      ],
    });
    const gate = recordingGate(() => 'allow');
    const result = await runCodexTurn({
      server: harness.server,
      thread: { cwd: harness.workspace },
      view,
      request: 'Write proof.txt',
      approvals: gate,
    });

    expect(result.status).toBe('completed');
    expect(gate.calls).toHaveLength(1);
    expect(gate.calls[0]).toMatchObject({ toolName: 'codex_command', risk: 'execute' });
    expect(gate.calls[0]?.summary).toContain('printf approved > proof.txt');
    expect(await readFile(join(harness.workspace, 'proof.txt'), 'utf8')).toBe('approved');
    expect(findUnpairedToolCalls(result.messages)).toEqual([]);
    expect(toolResults(result.messages)).toEqual([
      {
        toolName: 'codex_command',
        type: 'text',
        value: 'wrote\n',
        metadata: expect.objectContaining({ exitCode: 0, status: 'completed' }),
      },
    ]);
  });

  it('declines a command the policy denies, and the refusal reaches Codex', async () => {
    harness = await startCodexHarness({
      steps: [
        { items: [execCommandCall('call_no', 'printf nope > denied.txt')] },
        { items: [assistantMessage('Understood, not running it.')] },
      ],
    });
    const events: CodexEventEnvelope[] = [];
    const result = await runCodexTurn({
      server: harness.server,
      thread: { cwd: harness.workspace },
      view,
      request: 'Try to write denied.txt',
      approvals: recordingGate(() => 'deny'),
      onEvent: (envelope) => events.push(envelope),
    });

    expect(result.status).toBe('completed');
    await expect(readFile(join(harness.workspace, 'denied.txt'), 'utf8')).rejects.toThrow();
    expect(toolResults(result.messages)[0]).toMatchObject({ toolName: 'codex_command', type: 'error-text' });
    expect(events.map((envelope) => envelope.event)).toContainEqual(
      expect.objectContaining({ type: 'tool.call.completed', outcome: 'denied' }),
    );
    const followUp = harness.provider.requests[1]?.body.input ?? [];
    const output = followUp.find((item) => item['type'] === 'function_call_output' && item['call_id'] === 'call_no');
    expect(String(output?.['output'])).toMatch(/rejected by user/);
  });

  it('applies an approved patch and records the file change', async () => {
    harness = await startCodexHarness({
      steps: [
        {
          items: [
            applyPatchCall(
              'call_patch',
              '*** Begin Patch\n*** Add File: notes/hello.txt\n+hello from a patch\n*** End Patch\n',
            ),
          ],
        },
        { items: [assistantMessage('Added the note.')] },
      ],
    });
    const gate = recordingGate(() => 'allow');
    const result = await runCodexTurn({
      server: harness.server,
      thread: { cwd: harness.workspace },
      view,
      request: 'Add a note',
      approvals: gate,
    });

    expect(result.status).toBe('completed');
    expect(await readFile(join(harness.workspace, 'notes/hello.txt'), 'utf8')).toBe('hello from a patch\n');
    expect(gate.calls[0]).toMatchObject({ toolName: 'codex_apply_patch', risk: 'write' });
    expect(gate.calls[0]?.summary).toContain('add ');
    expect(gate.calls[0]?.summary).toContain('notes/hello.txt');
    expect(toolResults(result.messages)[0]).toMatchObject({ toolName: 'codex_apply_patch', type: 'text' });
    expect(findUnpairedToolCalls(result.messages)).toEqual([]);
  });

  it('interrupts a running turn when the signal aborts', async () => {
    harness = await startCodexHarness({ steps: [{ hang: true }] });
    const controller = new AbortController();
    const running = runCodexTurn({
      server: harness.server,
      thread: { cwd: harness.workspace },
      view,
      request: 'Take forever',
      signal: controller.signal,
    });
    await harness.provider.waitForRequests(1);
    controller.abort();
    const result = await running;
    expect(result.status).toBe('cancelled');
    expect(result.error?.code).toBe('cancelled');
    expect(result.messages).toEqual([{ role: 'user', content: 'Take forever' }]);
  });

  it('compacts a thread on request with local compaction and records it', async () => {
    harness = await startCodexHarness({
      steps: [
        { items: [assistantMessage('First answer.')] },
        { items: [assistantMessage('Summary: the user asked one question.')] },
      ],
    });
    const first = await runCodexTurn({
      server: harness.server,
      thread: { cwd: harness.workspace },
      view,
      request: 'First question',
    });
    const compaction = await compactCodexThread(harness.server, first.codex.threadId);
    expect(compaction.itemId.length).toBeGreaterThan(0);
    expect(harness.provider.requests).toHaveLength(2);
    expect(harness.provider.requests[1]?.kind).toBe('turn');
  });

  it('uses remote compaction with a provider named OpenAI and records the compaction', async () => {
    harness = await startCodexHarness({
      providerName: 'OpenAI',
      steps: [{ items: [assistantMessage('First answer.')] }],
    });
    const first = await runCodexTurn({
      server: harness.server,
      thread: { cwd: harness.workspace },
      view,
      request: 'First question',
    });
    await compactCodexThread(harness.server, first.codex.threadId);
    expect(harness.provider.requests.at(-1)?.kind).toBe('remote-compaction');

    const second = await runCodexTurn({
      server: harness.server,
      thread: { threadId: first.codex.threadId },
      view,
      request: 'Second question',
    });
    expect(second.status).toBe('completed');
    const replayed = harness.provider.requests.at(-1)?.body.input ?? [];
    expect(replayed.some((item) => item['type'] === 'compaction')).toBe(true);
  });
});

/** Every text the model was sent in request `index`, with its role, in order. */
function inputTexts(harness: CodexHarness, index: number): { role: string; text: string }[] {
  return (harness.provider.requests[index]?.body.input ?? []).flatMap((item) => {
    if (item['type'] !== 'message') return [];
    const content = item['content'] as { text?: string }[];
    return [{ role: String(item['role']), text: content.map((part) => part.text ?? '').join('') }];
  });
}

const fresh: CodexActiveView = {
  instructions: createInstructionSnapshot('You are Forge. Keep answers short.'),
  history: [],
};

describe('one Codex thread across turns', { retry: 1 }, () => {
  it('sends only the new request on a continued thread: Codex replays the first turn from its own history', async () => {
    harness = await startCodexHarness({
      steps: [
        { items: [assistantMessage('First answer: 42.')] },
        { items: [assistantMessage('You asked for the answer.')] },
      ],
    });
    const events: CodexEventEnvelope[] = [];
    const first = await runCodexTurn({
      server: harness.server,
      thread: { cwd: harness.workspace },
      view: fresh,
      request: 'What is the answer?',
    });
    expect(first.codex.input).toBe('request');
    expect(first.codex.model).toBe('gpt-5.5');
    const second = await runCodexTurn({
      server: harness.server,
      thread: { threadId: first.codex.threadId },
      view: fresh,
      request: 'What did I ask?',
      onEvent: (envelope) => events.push(envelope),
    });
    expect(second.status).toBe('completed');
    expect(second.codex.threadId).toBe(first.codex.threadId);

    const texts = inputTexts(harness, 1);
    const users = texts.filter((item) => item.role === 'user').map((item) => item.text);
    expect(users).toContain('What is the answer?');
    expect(users.at(-1)).toBe('What did I ask?');
    expect(texts).toContainEqual({ role: 'assistant', text: 'First answer: 42.' });
    expect(JSON.stringify(harness.provider.requests[1]?.body.input)).not.toContain('[FORGE ACTIVE VIEW');
    expect(events.map((envelope) => envelope.event)).toContainEqual(
      expect.objectContaining({ type: 'codex.thread.selected', how: 'continued', threadId: first.codex.threadId }),
    );
    expect(events.map((envelope) => envelope.event)).toContainEqual(
      expect.objectContaining({ type: 'codex.context.budgeted', input: 'request', historyMessages: 0 }),
    );
  });

  it('resumes the thread with thread/resume after the App Server restarts, and Forge still decides every approval', async () => {
    harness = await startCodexHarness({
      steps: [
        { items: [execCommandCall('call_one', 'printf one > one.txt')] },
        { items: [assistantMessage('Wrote one.txt.')] },
        { items: [execCommandCall('call_two', 'printf one > one.txt')] },
        { items: [assistantMessage('Not allowed this time.')] },
      ],
    });
    const allowing = recordingGate(() => 'allow');
    const first = await runCodexTurn({
      server: harness.server,
      thread: { cwd: harness.workspace },
      view: fresh,
      request: 'Write one.txt',
      approvals: allowing,
    });
    expect(first.status).toBe('completed');
    await rm(join(harness.workspace, 'one.txt'));

    const server = await harness.restart();
    expect(server.hasLoadedThread(first.codex.threadId)).toBe(false);
    const resumed = await server.resumeThread(first.codex.threadId, { cwd: harness.workspace });
    expect(resumed).toMatchObject({ threadId: first.codex.threadId, model: 'gpt-5.5' });
    expect(server.hasLoadedThread(first.codex.threadId)).toBe(true);

    const denying = recordingGate(() => 'deny');
    const second = await runCodexTurn({
      server,
      thread: { threadId: resumed.threadId },
      view: fresh,
      request: 'Write it again',
      approvals: denying,
    });
    expect(second.status).toBe('completed');
    // The same command was approved in the first turn; the resumed thread still asks Forge, and Forge says no.
    expect(denying.calls.map((call) => call.toolName)).toEqual(['codex_command']);
    await expect(readFile(join(harness.workspace, 'one.txt'), 'utf8')).rejects.toThrow();
    const users = inputTexts(harness, 2)
      .filter((item) => item.role === 'user')
      .map((item) => item.text);
    expect(users).toContain('Write one.txt');
    expect(users.at(-1)).toBe('Write it again');
  });

  it('refuses to resume a thread whose rollout was deleted', async () => {
    harness = await startCodexHarness({ steps: [{ items: [assistantMessage('Done.')] }] });
    const first = await runCodexTurn({
      server: harness.server,
      thread: { cwd: harness.workspace },
      view: fresh,
      request: 'Hello',
    });
    if (first.codex.rolloutPath === undefined) throw new Error('Codex reported no rollout path');
    const server = await harness.restart();
    await rm(first.codex.rolloutPath);
    const error = await server
      .resumeThread(first.codex.threadId, { cwd: harness.workspace })
      .catch((caught: unknown) => caught);
    expect(CodexProtocolError.isInstance(error)).toBe(true);
  });
});
