import { describe, expect, it } from 'vitest';
import { CUT_ANSWER_NOTE } from '../run/model-step.js';
import type { ContextPolicy } from '../budget/policy.js';
import { ContextOverflowError } from '../errors.js';
import type { EventEnvelope, ForgeEvent } from '../events/events.js';
import { createInstructionSnapshot } from '../instructions.js';
import { findUnpairedToolCalls, type Message } from '../messages.js';
import { runAgent } from '../run/run-agent.js';
import { ScriptedModel } from '../testing/index.js';
import type { ApprovalGate, Tool } from '../tools/tool.js';
import type { ContextManager, FitRequest, FitResult } from './context-manager.js';
import { CompactionRequestChannel, createRequestCompactionTool } from './request-compaction-tool.js';

const instructions = createInstructionSnapshot('You are a test agent.');
const allowAll: ApprovalGate = { check: async () => ({ kind: 'allow' }) };

function readTool(executed: string[], size = 20): Tool {
  return {
    name: 'read',
    description: 'Reads.',
    inputSchema: { type: 'object' },
    risk: 'read',
    execute: async (input) => {
      executed.push(JSON.stringify(input));
      return { output: { type: 'text', value: 'x'.repeat(size) } };
    },
  };
}

function events(): {
  list: EventEnvelope[];
  of: <T extends ForgeEvent['type']>(type: T) => Extract<ForgeEvent, { type: T }>[];
} {
  const list: EventEnvelope[] = [];
  return { list, of: (type) => list.map((envelope) => envelope.event).filter((event) => event.type === type) as never };
}

/**
 * What a manager hands back when its checkpoint leaves `history` verbatim out of `stored` messages
 * (the checkpoint covers the rest, so nothing is left out).
 */
function compacted(stored: number, checkpoint: string, history: readonly Message[], sourceHash: string): FitResult {
  return {
    kind: 'compacted',
    checkpoint,
    checkpointId: `cp_${sourceHash.slice(0, 16)}`,
    coveredThrough: stored - history.length,
    history,
    sourceHash,
  };
}

/** A context manager that replaces the history by `checkpoint` and nothing, and records how it was asked. */
function replacingManager(
  calls: FitRequest[],
  result: (request: FitRequest, call: number) => FitResult = () =>
    compacted(olderTurns.length, '[SESSION_CHECKPOINT v1]\n- earlier turns', [], 'a'.repeat(64)),
): ContextManager {
  return {
    async fit(request) {
      calls.push(request);
      return result(request, calls.length);
    },
  };
}

const olderTurns: Message[] = [
  { role: 'user', content: 'An early question.' },
  { role: 'assistant', content: [{ type: 'text', text: 'An early answer.' }] },
];

const compactPolicy: Partial<ContextPolicy> = { mode: 'compact' };

describe('overflow recovery', () => {
  it('compacts once and retries the step with the same admitted input: the request is not appended again and no tool runs twice (invariant 8)', async () => {
    const executed: string[] = [];
    const stored: Message[] = [];
    const calls: FitRequest[] = [];
    const model = new ScriptedModel([
      { toolCalls: [{ toolName: 'read', input: { path: 'a' } }] },
      { overflow: true },
      { text: 'Done.' },
    ]);
    const sink = events();
    const result = await runAgent({
      model,
      instructions,
      request: 'Summarize file a.',
      session: {
        history: { messages: olderTurns },
        append: (message) => {
          stored.push(message);
        },
        contextManager: replacingManager(calls),
      },
      tools: [readTool(executed)],
      approvals: allowAll,
      context: compactPolicy,
      onEvent: (envelope) => sink.list.push(envelope),
    });

    expect(result.error).toBeUndefined();
    expect(result.status).toBe('completed');
    expect(executed).toEqual(['{"path":"a"}']);
    expect(model.requests).toHaveLength(3);
    const [, failed, retried] = model.requests;
    expect(calls.map((call) => call.reason)).toEqual(['overflow']);
    expect(retried?.currentRequest).toBe(failed?.currentRequest);
    expect(retried?.continuation).toEqual(failed?.continuation);
    expect(retried?.history).toEqual([]);
    expect(retried?.checkpoint).toContain('earlier turns');
    const userTexts = [...(retried?.history ?? []), retried?.currentRequest, ...(retried?.continuation ?? [])].filter(
      (message) => message?.role === 'user',
    );
    expect(userTexts).toHaveLength(1);
    expect(stored.filter((message) => message.role === 'user')).toHaveLength(1);
    expect(result.messages.filter((message) => message.role === 'user')).toHaveLength(1);
    expect(findUnpairedToolCalls(result.messages)).toEqual([]);
    expect(sink.of('model.step.started').map((event) => event.step)).toEqual([1, 2, 2]);
  });

  it('recovers at most once: a second overflow fails the run with the provider error', async () => {
    const calls: FitRequest[] = [];
    const model = new ScriptedModel([{ overflow: true }, { overflow: true }]);
    const result = await runAgent({
      model,
      instructions,
      request: 'Hi',
      session: { history: { messages: olderTurns }, contextManager: replacingManager(calls) },
      context: compactPolicy,
    });
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('context_overflow');
    expect(model.requests).toHaveLength(2);
    expect(calls).toHaveLength(1);
  });

  it('does not retry after visible output', async () => {
    const calls: FitRequest[] = [];
    const model = new ScriptedModel([
      { text: 'Partial answer', error: new ContextOverflowError({ message: 'too long' }) },
    ]);
    const result = await runAgent({
      model,
      instructions,
      request: 'Hi',
      session: { history: { messages: olderTurns }, contextManager: replacingManager(calls) },
      context: compactPolicy,
    });
    expect(result.status).toBe('failed');
    expect(model.requests).toHaveLength(1);
    expect(calls).toHaveLength(0);
    expect(result.text).toBe(`Partial answer${CUT_ANSWER_NOTE}`);
  });

  it.each(['off', 'warn', 'shadow'] as const)('does not compact on overflow in mode %s', async (mode) => {
    const calls: FitRequest[] = [];
    const model = new ScriptedModel([{ overflow: true }]);
    const result = await runAgent({
      model,
      instructions,
      request: 'Hi',
      session: { history: { messages: olderTurns }, contextManager: replacingManager(calls) },
      context: { mode },
    });
    expect(result.status).toBe('failed');
    expect(calls).toHaveLength(0);
    expect(model.requests).toHaveLength(1);
  });
});

describe('the view rule inside a run (mode compact)', () => {
  const window = { capabilities: { contextWindowTokens: 10_000, maxOutputTokens: 500 } };
  const policy: Partial<ContextPolicy> = { mode: 'compact', bufferTokens: 500, reservedOutputTokens: 500 };
  const turns = (count: number, size: number): Message[] =>
    Array.from({ length: count }, (_, index) => ({
      role: 'user' as const,
      content: `Turn ${index}: ${'word '.repeat(size)}`,
    }));

  it('sends the whole history and never asks for room while the request is under the compaction threshold', async () => {
    const calls: FitRequest[] = [];
    const history = turns(20, 60);
    const model = new ScriptedModel([{ text: 'ok' }], window);
    const sink = events();
    const result = await runAgent({
      model,
      instructions,
      request: 'Go on.',
      session: { history: { messages: history }, contextManager: replacingManager(calls) },
      context: policy,
      onEvent: (envelope) => sink.list.push(envelope),
    });
    expect(result.status).toBe('completed');
    expect(calls).toEqual([]);
    expect(model.requests[0]?.history).toEqual(history);
    expect(sink.of('context.budgeted')[0]).toMatchObject({
      view: { coveredMessages: 0, verbatimMessages: 20, omitted: 0 },
    });
  });

  it('asks for room past the threshold, and records the checkpoint and what it covers in the budget event', async () => {
    const calls: FitRequest[] = [];
    const history = turns(40, 160);
    const model = new ScriptedModel([{ text: 'ok' }], window);
    const sink = events();
    const manager = replacingManager(calls, (request) =>
      compacted(history.length, '[SESSION_CHECKPOINT v1]', request.request.history.slice(-4), 'c'.repeat(64)),
    );
    const result = await runAgent({
      model,
      instructions,
      request: 'Go on.',
      session: { history: { messages: history }, contextManager: manager },
      context: policy,
      onEvent: (envelope) => sink.list.push(envelope),
    });
    expect(result.status).toBe('completed');
    expect(calls.map((call) => call.reason)).toEqual(['preflight']);
    expect(calls[0]?.budget.estimate.tokens).toBeGreaterThan(calls[0]?.budget.compactAtTokens ?? Infinity);
    expect(model.requests[0]?.history).toEqual(history.slice(-4));
    expect(sink.of('context.budgeted')[0]).toMatchObject({
      view: { checkpointId: `cp_${'c'.repeat(16)}`, coveredMessages: 36, verbatimMessages: 4, omitted: 0 },
    });
  });

  it('tells the context manager how long ago the conversation last reached the provider, for the cost gate', async () => {
    const calls: FitRequest[] = [];
    const history = turns(40, 160);
    const model = new ScriptedModel(
      [{ toolCalls: [{ toolName: 'read', input: { path: 'a' } }] }, { text: 'ok' }],
      window,
    );
    let clock = 1_000_000;
    const now = () => (clock += 1_000);
    const unchanged: ContextManager = { fit: async (request) => (calls.push(request), { kind: 'unchanged' }) };
    await runAgent({
      model,
      instructions,
      request: 'Go on.',
      session: {
        history: { messages: history },
        contextManager: unchanged,
        capabilities: { cache: { lastRequestAt: 1_000_000 - 600_000 } },
      },
      tools: [readTool([])],
      approvals: allowAll,
      context: policy,
      now,
    });
    // Step 1 measures from the conversation's previous request, step 2 from step 1's (each `now()` call advances the clock 1 s).
    const [first, second] = calls.map((call) => call.idleMs ?? -1);
    expect(first).toBeGreaterThan(600_000);
    expect(second).toBeGreaterThan(0);
    expect(second).toBeLessThan(20_000);
  });

  it('asks the context manager at the first step only, below the threshold, when the checkpoint changed since the last request', async () => {
    const history = turns(20, 60);
    const ask = async (session: { readonly checkpoint?: string; readonly checkpointChanged?: boolean }) => {
      const calls: FitRequest[] = [];
      const model = new ScriptedModel(
        [{ toolCalls: [{ toolName: 'read', input: { path: 'a' } }] }, { text: 'ok' }],
        window,
      );
      const unchanged: ContextManager = { fit: async (request) => (calls.push(request), { kind: 'unchanged' }) };
      const result = await runAgent({
        model,
        instructions,
        request: 'Go on.',
        session: {
          history: {
            messages: history,
            ...(session.checkpoint === undefined ? {} : { checkpoint: session.checkpoint }),
            origin: { coveredMessages: 0, ...(session.checkpoint === undefined ? {} : { checkpointId: 'cp_1' }) },
          },
          contextManager: unchanged,
          capabilities: { cache: session.checkpointChanged === true ? { checkpointChanged: true } : {} },
        },
        tools: [readTool([])],
        approvals: allowAll,
        context: policy,
      });
      expect(result.status).toBe('completed');
      return calls;
    };
    const changed = await ask({
      checkpoint: '[SESSION_CHECKPOINT v1]\n- a fact, now SUSPECT',
      checkpointChanged: true,
    });
    expect(changed.map((call) => [call.step, call.reason, call.checkpointChanged])).toEqual([
      [1, 'checkpoint_changed', true],
    ]);
    expect(changed[0]?.budget.estimate.tokens).toBeLessThan(changed[0]?.budget.compactAtTokens ?? 0);
    expect(await ask({ checkpoint: '[SESSION_CHECKPOINT v1]', checkpointChanged: false })).toEqual([]);
    expect(await ask({ checkpointChanged: true })).toEqual([]);
  });

  it('fails loudly instead of sending a view that would leave stored messages out', async () => {
    const history = turns(40, 160);
    const model = new ScriptedModel([{ text: 'never sent' }], window);
    const holey: ContextManager = {
      fit: async (request) => ({
        kind: 'compacted',
        checkpoint: 'c',
        checkpointId: 'cp_hole',
        coveredThrough: 10,
        history: request.request.history.slice(-4),
        sourceHash: 'd'.repeat(64),
      }),
    };
    await expect(
      runAgent({
        model,
        instructions,
        request: 'Go on.',
        session: { history: { messages: history }, contextManager: holey },
        context: policy,
      }),
    ).rejects.toThrow(/26 would be left out/);
    expect(model.requests).toEqual([]);
  });
});

describe('tool-output projection', () => {
  const window = { capabilities: { contextWindowTokens: 8_000, maxOutputTokens: 500 } };
  const policy: Partial<ContextPolicy> = { mode: 'compact', bufferTokens: 500, reservedOutputTokens: 500 };

  it('projects older completed tool outputs to a bounded form before any checkpoint, never the latest exchange, keeping every call paired', async () => {
    const executed: string[] = [];
    const model = new ScriptedModel(
      [
        { toolCalls: [{ toolName: 'read', input: { n: 1 } }] },
        { toolCalls: [{ toolName: 'read', input: { n: 2 } }] },
        { toolCalls: [{ toolName: 'read', input: { n: 3 } }] },
        { text: 'Read all three.' },
      ],
      window,
    );
    const sink = events();
    const result = await runAgent({
      model,
      instructions,
      request: 'Read three files.',
      tools: [readTool(executed, 9_000)],
      approvals: allowAll,
      context: policy,
      onEvent: (envelope) => sink.list.push(envelope),
    });

    expect(result.status).toBe('completed');
    expect(executed).toHaveLength(3);
    const last = model.requests.at(-1);
    const outputs = (last?.continuation ?? []).flatMap((message) =>
      message.role === 'tool' ? message.content.map((part) => part.output.value as string) : [],
    );
    expect(outputs).toHaveLength(3);
    expect(outputs[0]).toMatch(
      /^\[tool output projected: read succeeded; 9,000 characters, sha256 [0-9a-f]{16}; the first 400 follow\]/,
    );
    expect(outputs[0]).toContain('characters left out to save context; call the tool again');
    expect(outputs[2]).toBe('x'.repeat(9_000));
    expect(findUnpairedToolCalls(last?.continuation ?? [])).toEqual([]);
    // The transcript keeps the full outputs: projection only changes what is sent.
    const stored = result.messages.flatMap((message) =>
      message.role === 'tool' ? message.content.map((part) => part.output.value as string) : [],
    );
    expect(stored.every((value) => value === 'x'.repeat(9_000))).toBe(true);
    const projections = sink
      .of('context.compaction.completed')
      .filter((event) => event.strategy === 'tool-output-projection');
    expect(projections.length).toBeGreaterThan(0);
    expect(projections[0]?.reclaimedTokens).toBeGreaterThan(0);
  });

  it('leaves outputs alone in mode warn', async () => {
    const model = new ScriptedModel(
      [
        { toolCalls: [{ toolName: 'read', input: {} }] },
        { toolCalls: [{ toolName: 'read', input: {} }] },
        { text: 'ok' },
      ],
      window,
    );
    await runAgent({
      model,
      instructions,
      request: 'Read.',
      tools: [readTool([], 9_000)],
      approvals: allowAll,
      context: { ...policy, mode: 'warn' },
    });
    const outputs = (model.requests.at(-1)?.continuation ?? []).flatMap((message) =>
      message.role === 'tool' ? message.content.map((part) => part.output.value as string) : [],
    );
    expect(outputs.every((value) => value === 'x'.repeat(9_000))).toBe(true);
  });
});

describe('the no-progress guard', () => {
  const tight = { capabilities: { contextWindowTokens: 4_000, maxOutputTokens: 500 } };
  const policy: Partial<ContextPolicy> = { mode: 'compact', bufferTokens: 500, reservedOutputTokens: 500 };
  // Mandatory context (instructions and request) nearly fills the 3,500 tokens available for input.
  const heavy = createInstructionSnapshot(`You are a test agent. ${'Follow the project rules. '.repeat(480)}`);
  const history: Message[] = Array.from({ length: 6 }, (_, index) => ({
    role: 'user' as const,
    content: `Earlier turn ${index}: ${'detail '.repeat(150)}`,
  }));

  it('stops with limit_reached and the reason when a compaction reclaims too little, without calling the model (invariants 7 and 9)', async () => {
    const calls: FitRequest[] = [];
    const model = new ScriptedModel([{ text: 'never sent' }], tight);
    const sink = events();
    const manager = replacingManager(calls, (request, call) =>
      compacted(
        history.length,
        `[SESSION_CHECKPOINT v1]\n${'summary '.repeat(60)}`,
        request.request.history.slice(1),
        String(call).repeat(64).slice(0, 64),
      ),
    );
    const result = await runAgent({
      model,
      instructions: heavy,
      request: 'Go on.',
      session: { history: { messages: history }, contextManager: manager },
      context: policy,
      onEvent: (envelope) => sink.list.push(envelope),
    });

    expect(result.status).toBe('limit_reached');
    expect(model.requests).toHaveLength(0);
    expect(calls.length).toBeGreaterThanOrEqual(1);
    expect(calls.length).toBeLessThanOrEqual(3);
    const stop = sink.of('context.limit_reached').at(-1);
    expect(stop?.reason).toBe('compaction_no_progress');
    expect(result.error?.message).toMatch(/does not fit .*reclaimed .* less than the 8,000/);
  });

  it('stops when the same messages come back compacted again', async () => {
    const calls: FitRequest[] = [];
    const model = new ScriptedModel([], tight);
    const sink = events();
    const manager = replacingManager(calls, (request) =>
      compacted(history.length, 'same', request.request.history.slice(1), 'b'.repeat(64)),
    );
    const result = await runAgent({
      model,
      instructions: heavy,
      request: 'Go on.',
      session: { history: { messages: history }, contextManager: manager },
      context: policy,
      compactionGuard: { minReclaimTokens: 0, minReclaimRatio: 0 },
      onEvent: (envelope) => sink.list.push(envelope),
    });
    expect(result.status).toBe('limit_reached');
    expect(calls).toHaveLength(2);
    expect(sink.of('context.limit_reached').at(-1)?.reason).toBe('compaction_same_source');
  });

  it('stops at the attempt limit when every compaction helps a little but never enough', async () => {
    const calls: FitRequest[] = [];
    const model = new ScriptedModel([], tight);
    const sink = events();
    const manager = replacingManager(calls, (request, call) =>
      compacted(history.length, 'c', request.request.history.slice(1), String(call).repeat(64)),
    );
    const result = await runAgent({
      model,
      instructions: heavy,
      request: 'Go on.',
      session: { history: { messages: history }, contextManager: manager },
      context: policy,
      compactionGuard: { minReclaimTokens: 0, minReclaimRatio: 0 },
      onEvent: (envelope) => sink.list.push(envelope),
    });
    expect(result.status).toBe('limit_reached');
    expect(calls).toHaveLength(3);
    expect(sink.of('context.limit_reached').at(-1)?.reason).toBe('compaction_attempt_limit');
    expect(sink.of('context.compaction.skipped').at(-1)).toMatchObject({ reason: 'guard' });
  });

  it('does not ask the manager when mandatory context alone does not fit', async () => {
    const calls: FitRequest[] = [];
    const model = new ScriptedModel([], { capabilities: { contextWindowTokens: 1_500, maxOutputTokens: 500 } });
    const result = await runAgent({
      model,
      instructions: heavy,
      request: 'Go on.',
      session: { history: { messages: history }, contextManager: replacingManager(calls) },
      context: policy,
    });
    expect(result.status).toBe('limit_reached');
    expect(calls).toHaveLength(0);
  });
});

describe('request_compaction', () => {
  it('the model asks, and the request reaches the context manager at the next step with a usage snapshot in the result', async () => {
    const calls: FitRequest[] = [];
    const channel = new CompactionRequestChannel();
    const model = new ScriptedModel([
      { toolCalls: [{ toolName: 'request_compaction', input: { reason: 'the old exploration is no longer needed' } }] },
      { text: 'Continuing.' },
    ]);
    const result = await runAgent({
      model,
      instructions,
      request: 'Keep going.',
      session: {
        history: { messages: olderTurns },
        contextManager: replacingManager(calls, () => ({ kind: 'unchanged' })),
        capabilities: { compactionRequests: channel },
      },
      tools: [createRequestCompactionTool(channel)],
      approvals: allowAll,
      context: compactPolicy,
    });
    expect(result.status).toBe('completed');
    expect(calls.map((call) => [call.reason, call.step])).toEqual([['model_request', 2]]);
    const toolResult = result.messages.find((message) => message.role === 'tool');
    expect(toolResult?.role === 'tool' && toolResult.content[0]?.output).toMatchObject({
      type: 'json',
      value: { requested: true, usage: { usedTokens: expect.any(Number), percentUsed: expect.any(Number) } },
    });
    // The model can only ask: the history it sent is untouched.
    expect(model.requests[1]?.history).toEqual(olderTurns);
  });

  it('rejects a request without a reason as an error the model sees', async () => {
    const channel = new CompactionRequestChannel();
    const output = await createRequestCompactionTool(channel).execute(
      {},
      { toolCallId: 'c1', signal: new AbortController().signal },
    );
    expect(output.output.type).toBe('error-text');
    expect(channel.take()).toBeUndefined();
  });
});
