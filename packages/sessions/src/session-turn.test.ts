import { findUnpairedToolCalls, TransportError, type Message, type ModelRequest, type Tool } from '@forge/core';
import { createRedactor } from '@forge/core/redaction';
import { ScriptedModel } from '@forge/core/testing';
import { readFile, stat } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { SessionLockedError, listSessions, createSession, loadTranscript } from '@forge/persistence';
import { openSessionHandle, runSessionTurn } from './session-turn.js';
import { useTemporaryHome } from '@forge/persistence/test-helpers/temporary-home';

const temporaryHome = useTemporaryHome();
const instructions = { text: 'You are Forge.', sources: [], hash: 'a'.repeat(64) };

const readTool: Tool = {
  name: 'read_file',
  description: 'Reads a file.',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
  risk: 'read',
  describe: (input) => `read ${JSON.stringify(input)}`,
  execute: async () => ({ output: { type: 'text', value: 'file contents' } }),
};

/** Everything the model saw before its answer: history, the request and the run so far. */
function sent(request: ModelRequest | undefined): Message[] {
  if (request === undefined) throw new Error('the model received no request');
  return [...request.history, request.currentRequest, ...request.continuation];
}

describe('runSessionTurn', () => {
  it('continues a session across restarts: the third turn sees the first two as history', async () => {
    const home = await temporaryHome();
    const first = await runSessionTurn({
      home,
      workspaceRoot: '/work/project',
      model: new ScriptedModel([{ text: 'Noted: tabs.' }]),
      request: 'Use tabs, not spaces.',
      instructions,
    });
    expect(first.result.status).toBe('completed');
    const second = await runSessionTurn({
      home,
      sessionId: first.sessionId,
      model: new ScriptedModel([{ text: 'Tabs it is.' }]),
      request: 'Again: tabs.',
      instructions,
    });
    expect(second.sessionId).toBe(first.sessionId);

    const third = new ScriptedModel([{ text: 'You asked for tabs twice.' }]);
    const handle = await openSessionHandle({ home, sessionId: first.sessionId });
    await handle.runTurn({ model: third, request: 'What did I ask?', instructions: async () => instructions });
    await handle.close();

    expect(third.requests[0]?.history).toEqual([
      { role: 'user', content: 'Use tabs, not spaces.' },
      { role: 'assistant', content: [{ type: 'text', text: 'Noted: tabs.' }] },
      { role: 'user', content: 'Again: tabs.' },
      { role: 'assistant', content: [{ type: 'text', text: 'Tabs it is.' }] },
    ]);
    const loaded = await loadTranscript(home, first.sessionId);
    expect(loaded.messages).toHaveLength(6);
    expect(loaded.workspaceRoot).toBe('/work/project');
    expect(
      loaded.runs.map((run) => [run.status, run.firstMessageIndex, run.instructionsHash, run.model?.provider]),
    ).toEqual([
      ['completed', 0, 'a'.repeat(64), 'scripted'],
      ['completed', 2, 'a'.repeat(64), 'scripted'],
      ['completed', 4, 'a'.repeat(64), 'scripted'],
    ]);
    expect(loaded.messages.slice(0, 4)).toEqual(third.requests[0]?.history);
  });

  it('appends each message as it is produced, so a tool exchange is stored with its run id', async () => {
    const home = await temporaryHome();
    const turn = await runSessionTurn({
      home,
      workspaceRoot: null,
      model: new ScriptedModel([
        { toolCalls: [{ toolName: 'read_file', input: { path: 'a.txt' } }] },
        { text: 'It says: file contents.' },
      ]),
      request: 'Read a.txt',
      instructions,
      tools: [readTool],
      approvals: { check: async () => ({ kind: 'allow' }) },
    });
    const log = await readFile(`${home}/sessions/${turn.sessionId}/session.jsonl`, 'utf8');
    const messageRecords = log
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; runId?: string })
      .filter((record) => record.type === 'message');
    expect(messageRecords).toHaveLength(4);
    expect(messageRecords.every((record) => record.runId === turn.runId)).toBe(true);
    expect((await loadTranscript(home, turn.sessionId)).messages).toEqual(turn.result.messages);
  });

  it('writes a redacted trace for the run and redacts what the session stores', async () => {
    const home = await temporaryHome();
    const secret = 'correct-horse-battery-staple';
    const leakingKey = `sk-proj-${'Zq9'.repeat(12)}`;
    const turn = await runSessionTurn({
      home,
      workspaceRoot: '/w',
      redactor: createRedactor({ secrets: [secret] }),
      model: new ScriptedModel([
        {
          error: new TransportError({
            message: `The provider rejected key ${leakingKey} (${secret})`,
            isRetryable: false,
          }),
        },
      ]),
      request: `My password is ${secret}`,
      instructions,
    });
    expect(turn.result.status).toBe('failed');
    expect(turn.tracePath).toBe(`${home}/runs/${turn.runId}.jsonl`);
    expect((await stat(turn.tracePath)).mode & 0o777).toBe(0o600);
    const trace = await readFile(turn.tracePath, 'utf8');
    expect(trace).toContain('"run.failed"');
    expect(trace).not.toContain(secret);
    expect(trace).not.toContain(leakingKey);
    expect(trace).toContain('[REDACTED:');

    const loaded = await loadTranscript(home, turn.sessionId);
    expect(loaded.messages).toEqual([{ role: 'user', content: 'My password is [REDACTED:secret]' }]);
    expect(loaded.runs[0]?.status).toBe('failed');
    expect(JSON.stringify(loaded.runs[0]?.error)).not.toContain(secret);
    const log = await readFile(`${home}/sessions/${turn.sessionId}/session.jsonl`, 'utf8');
    expect(log).not.toContain(secret);
    expect(log).not.toContain(leakingKey);
  });

  it('sends every stored message as history, never changes the transcript, and selects the same view after reopening', async () => {
    const home = await temporaryHome();
    const writer = await createSession(home, { workspaceRoot: '/w' });
    const earlier: Message[] = [];
    for (let turn = 0; turn < 20; turn += 1) {
      earlier.push({ role: 'user', content: `question ${turn} ${'context '.repeat(20)}` });
      earlier.push({ role: 'assistant', content: [{ type: 'text', text: `answer ${turn}` }] });
    }
    await writer.appendMessages(earlier);
    await writer.close();

    const handle = await openSessionHandle({ home, sessionId: writer.id });
    const before = handle.selectView({ mode: 'warn' });
    expect(before).toMatchObject({ tailStart: 0, end: 40, omitted: 0, history: earlier });
    const model = new ScriptedModel([{ text: 'ok' }]);
    const turn = await handle.runTurn({
      model,
      request: 'next',
      instructions,
      context: { mode: 'warn', recentTailTokens: 200 },
    });
    await handle.close();

    expect(model.requests[0]?.history).toEqual(earlier);
    expect(turn.view).toMatchObject({ tailStart: 0, omitted: 0 });
    const loaded = await loadTranscript(home, writer.id);
    expect(loaded.messages.slice(0, earlier.length)).toEqual(earlier);
    expect(loaded.messages).toHaveLength(earlier.length + 2);

    const reopened = await openSessionHandle({ home, sessionId: writer.id });
    const again = reopened.selectView({ mode: 'compact' });
    await reopened.close();
    const live = handle.selectView({ mode: 'compact' });
    expect(again).toEqual(live);
  });
});

describe('mode off over a long session', () => {
  const turns = (count: number, words: number): Message[] =>
    Array.from({ length: count }, (_, turn): Message[] => [
      { role: 'user', content: `Turn ${turn}: ${'please keep this detail in mind '.repeat(words)}` },
      { role: 'assistant', content: [{ type: 'text', text: `Noted detail ${turn}.` }] },
    ]).flat();

  it('sends all 40 stored turns in a large window, and stops limit_reached without calling the provider once they no longer fit', async () => {
    const home = await temporaryHome();
    const writer = await createSession(home, { workspaceRoot: '/w' });
    const earlier = turns(40, 30);
    await writer.appendMessages(earlier);
    await writer.close();

    const large = new ScriptedModel([{ text: 'I have all 40 turns.' }], {
      capabilities: { contextWindowTokens: 200_000 },
    });
    const handle = await openSessionHandle({ home, sessionId: writer.id });
    const events: string[] = [];
    const sent = await handle.runTurn({
      model: large,
      request: 'Turn 40.',
      instructions,
      context: { mode: 'off' },
      onEvent: (envelope) => events.push(envelope.event.type),
    });
    expect(sent.result.status).toBe('completed');
    expect(large.requests[0]?.history).toEqual(earlier);
    expect(large.requests[0]?.history.filter((message) => message.role === 'user')).toHaveLength(40);
    expect(events).not.toContain('context.warning');

    const window = (await large.estimateRequestTokens(large.requests[0] as ModelRequest)).tokens;
    const small = new ScriptedModel([{ text: 'never sent' }], {
      capabilities: { contextWindowTokens: Math.floor(window / 2) + 500 },
    });
    const stopped = await handle.runTurn({
      model: small,
      request: 'Turn 41.',
      instructions,
      context: { mode: 'off', bufferTokens: 500, reservedOutputTokens: 500 },
    });
    await handle.close();
    expect(stopped.result.status).toBe('limit_reached');
    expect(stopped.result.error?.message).toMatch(
      /whole conversation no longer fits.*forge compact --last.*--context-mode compact.*new session/,
    );
    expect(small.requests).toEqual([]);
    const stored = await loadTranscript(home, writer.id);
    expect(stored.messages.slice(0, 80)).toEqual(earlier);
    expect(stored.checkpoint).toBeUndefined();
  });
});

describe('repairing a session a crash left behind', () => {
  it('gives dangling tool calls error results and ends the unfinished run, by appending only', async () => {
    const home = await temporaryHome();
    const writer = await createSession(home, { workspaceRoot: '/w' });
    await writer.appendMessages([
      { role: 'user', content: 'Read two files.' },
      { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
    ]);
    await writer.recordRunStart({ runId: 'run_crashed', instructionsHash: 'b'.repeat(64) });
    await writer.appendMessages(
      [
        { role: 'user', content: 'Now read a and b.' },
        {
          role: 'assistant',
          content: [
            { type: 'tool-call', toolCallId: 'call_a', toolName: 'read_file', input: { path: 'a' } },
            { type: 'tool-call', toolCallId: 'call_b', toolName: 'read_file', input: { path: 'b' } },
          ],
        },
      ],
      { runId: 'run_crashed' },
    );
    await writer.close();
    const logFile = `${home}/sessions/${writer.id}/session.jsonl`;
    const crashedBytes = await readFile(logFile);

    const handle = await openSessionHandle({ home, sessionId: writer.id });
    expect(handle.openWarnings.map((warning) => warning.code)).toEqual(['tool_calls_interrupted', 'run_interrupted']);
    const repaired = handle.transcript();
    expect(repaired.messages).toHaveLength(5);
    const results = repaired.messages[4];
    expect(results?.role).toBe('tool');
    expect(results?.role === 'tool' ? results.content.map((part) => [part.toolCallId, part.output.type]) : []).toEqual([
      ['call_a', 'error-text'],
      ['call_b', 'error-text'],
    ]);
    expect(JSON.stringify(results)).toContain('stopped before this tool call finished');
    expect(repaired.runs.map((run) => [run.runId, run.status, run.error?.code])).toEqual([
      ['run_crashed', 'failed', 'interrupted'],
    ]);

    const model = new ScriptedModel([{ text: 'Starting over.' }]);
    await handle.runTurn({ model, request: 'Try again.', instructions });
    await handle.close();
    expect(findUnpairedToolCalls(sent(model.requests[0]))).toEqual([]);
    expect((await readFile(logFile)).subarray(0, crashedBytes.length).equals(crashedBytes)).toBe(true);

    const reopened = await openSessionHandle({ home, sessionId: writer.id });
    expect(reopened.openWarnings).toEqual([]);
    expect(reopened.messages).toHaveLength(7);
    await reopened.close();
  });

  it('leaves a cleanly ended session untouched when it is reopened', async () => {
    const home = await temporaryHome();
    const turn = await runSessionTurn({
      home,
      workspaceRoot: '/w',
      model: new ScriptedModel([{ text: 'hi' }]),
      request: 'hello',
      instructions,
    });
    const logFile = `${home}/sessions/${turn.sessionId}/session.jsonl`;
    const before = await readFile(logFile);
    const handle = await openSessionHandle({ home, sessionId: turn.sessionId });
    expect(handle.openWarnings).toEqual([]);
    await handle.close();
    expect((await readFile(logFile)).equals(before)).toBe(true);
  });
});

describe('the session handle', () => {
  it('holds the lock for its life: a second writer is refused until it closes', async () => {
    const home = await temporaryHome();
    const handle = await openSessionHandle({ home, workspaceRoot: '/w' });
    await expect(openSessionHandle({ home, sessionId: handle.id })).rejects.toSatisfy((error) =>
      SessionLockedError.isInstance(error),
    );
    await expect(
      runSessionTurn({
        home,
        sessionId: handle.id,
        model: new ScriptedModel([{ text: 'x' }]),
        request: 'x',
        instructions,
      }),
    ).rejects.toThrow(/only one forge may write a session at a time/);
    await handle.close();
    const again = await openSessionHandle({ home, sessionId: handle.id });
    await again.close();
  });

  it('refuses a second turn while one runs, and any turn once closed', async () => {
    const home = await temporaryHome();
    const handle = await openSessionHandle({ home, workspaceRoot: '/w' });
    const controller = new AbortController();
    const model = new ScriptedModel([{ hang: true }]);
    const running = handle.runTurn({ model, request: 'wait', instructions, signal: controller.signal });
    await expect(handle.runTurn({ model, request: 'again', instructions })).rejects.toThrow(/already running a turn/);
    controller.abort();
    expect((await running).result.status).toBe('cancelled');
    await handle.close();
    await expect(handle.runTurn({ model, request: 'late', instructions })).rejects.toThrow(/is closed/);
    expect((await loadTranscript(home, handle.id)).runs.map((run) => run.status)).toEqual(['cancelled']);
  });

  it('names each run with the id maker it was given, across a reopen, and refuses an unsafe id before the run starts', async () => {
    const home = await temporaryHome();
    let made = 0;
    const newRunId = () => `run_fixed_${(made += 1)}`;
    const handle = await openSessionHandle({ home, workspaceRoot: '/w', newRunId });
    const first = await handle.runTurn({ model: new ScriptedModel([{ text: 'one' }]), request: 'one', instructions });
    await handle.close();
    const reopened = await openSessionHandle({ home, sessionId: handle.id, newRunId });
    const second = await reopened.runTurn({
      model: new ScriptedModel([{ text: 'two' }]),
      request: 'two',
      instructions,
    });
    await reopened.close();
    expect([first.runId, second.runId]).toEqual(['run_fixed_1', 'run_fixed_2']);
    expect((await loadTranscript(home, handle.id)).runs.map((run) => run.runId)).toEqual([
      'run_fixed_1',
      'run_fixed_2',
    ]);

    const unsafe = await openSessionHandle({ home, sessionId: handle.id, newRunId: () => '../escape' });
    await expect(
      unsafe.runTurn({ model: new ScriptedModel([{ text: 'x' }]), request: 'x', instructions }),
    ).rejects.toThrow(/Invalid run id/);
    await unsafe.close();
    expect((await loadTranscript(home, handle.id)).runs).toHaveLength(2);
  });

  it('discards a session it created that never got a message, and keeps every other', async () => {
    const home = await temporaryHome();
    const unused = await openSessionHandle({ home, workspaceRoot: '/w' });
    await unused.close({ discardIfEmpty: true });
    expect(await listSessions(home)).toEqual([]);

    const used = await openSessionHandle({ home, workspaceRoot: '/w' });
    await used.runTurn({ model: new ScriptedModel([{ text: 'ok' }]), request: 'hi', instructions });
    await used.close({ discardIfEmpty: true });
    const created = await createSession(home, { workspaceRoot: '/w' });
    await created.close();
    const resumed = await openSessionHandle({ home, sessionId: created.id });
    await resumed.close({ discardIfEmpty: true });
    expect((await listSessions(home)).map((session) => session.id).sort()).toEqual([used.id, created.id].sort());
  });
});

describe('a turn run by another engine', () => {
  it('gets the same view, stores its messages and run, and traces its own events next to core ones', async () => {
    const home = await temporaryHome();
    const first = await runSessionTurn({
      home,
      workspaceRoot: '/w',
      model: new ScriptedModel([{ text: 'Noted.' }]),
      request: 'Remember tabs.',
      instructions,
    });
    const handle = await openSessionHandle({ home, sessionId: first.sessionId });
    const seen: string[] = [];
    let received: { history: readonly Message[]; runId: string; sessionId: string } | undefined;
    const turn = await handle.runEngineTurn({
      instructions: async () => instructions,
      model: { provider: 'other-engine', modelId: 'm1' },
      onEvent: (envelope) => seen.push(envelope.event.type),
      run: async (input) => {
        received = { history: input.history, runId: input.runId, sessionId: input.sessionId };
        const envelope = {
          schemaVersion: 1 as const,
          runId: input.runId,
          sessionId: input.sessionId,
          timestamp: 'now',
        };
        input.onEvent({ ...envelope, sequence: 0, event: { type: 'engine.cost.reported', tokens: 42 } });
        const messages: Message[] = [
          { role: 'user', content: 'Which style?' },
          { role: 'assistant', content: [{ type: 'text', text: 'Tabs.' }] },
        ];
        for (const message of messages) await input.onMessage(message);
        input.onEvent({ ...envelope, sequence: 1, event: { type: 'model.step.started', step: 1 } });
        return {
          result: {
            runId: input.runId,
            status: 'completed',
            messages,
            text: 'Tabs.',
            steps: 1,
            usage: {
              inputTokens: 10,
              cacheReadTokens: undefined,
              cacheWriteTokens: undefined,
              outputTokens: 2,
              reasoningTokens: undefined,
            },
            instructionsHash: input.instructions.hash,
          },
        };
      },
    });
    await handle.close();

    expect(received).toEqual({ history: first.result.messages, runId: turn.runId, sessionId: first.sessionId });
    expect(seen).toEqual(['engine.cost.reported', 'model.step.started']);
    const trace = (await readFile(turn.tracePath, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: { type: string; tokens?: number } });
    expect(trace.map((entry) => entry.event)).toEqual([
      { type: 'engine.cost.reported', tokens: 42 },
      { type: 'model.step.started', step: 1 },
    ]);
    const loaded = await loadTranscript(home, first.sessionId);
    expect(loaded.messages.slice(2)).toEqual([
      { role: 'user', content: 'Which style?' },
      { role: 'assistant', content: [{ type: 'text', text: 'Tabs.' }] },
    ]);
    expect(loaded.runs.at(-1)).toMatchObject({
      runId: turn.runId,
      status: 'completed',
      firstMessageIndex: 2,
      model: { provider: 'other-engine', modelId: 'm1' },
      usage: { inputTokens: 10, outputTokens: 2 },
    });
  });

  it('records a rejected engine run as failed, pairing the tool call it left open, and rethrows', async () => {
    const home = await temporaryHome();
    const handle = await openSessionHandle({ home, workspaceRoot: '/w' });
    const run = handle.runEngineTurn({
      instructions,
      model: { provider: 'other-engine', modelId: 'm1' },
      run: async (input) => {
        await input.onMessage({ role: 'user', content: 'Run it.' });
        await input.onMessage({
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'engine_command', input: { command: 'ls' } }],
        });
        throw new Error('the engine process vanished');
      },
    });
    await expect(run).rejects.toThrow('the engine process vanished');
    await handle.close();
    const loaded = await loadTranscript(home, handle.id);
    expect(findUnpairedToolCalls(loaded.messages)).toEqual([]);
    expect(loaded.runs.map((entry) => [entry.status, entry.error?.code, entry.error?.message])).toEqual([
      ['failed', 'host_failure', 'the engine process vanished'],
    ]);
  });
});
