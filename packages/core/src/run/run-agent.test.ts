import { describe, expect, it } from 'vitest';
import { CUT_ANSWER_NOTE } from './model-step.js';
import { ContextOverflowError, RateLimitError, TransportError } from '../errors.js';
import type { EventEnvelope, ForgeEvent } from '../events/events.js';
import { createInstructionSnapshot } from '../instructions.js';
import { findUnpairedToolCalls, type Message } from '../messages.js';
import { ScriptedModel } from '../testing/index.js';
import { MAX_TOOL_ERROR_TEXT_BYTES } from '../tools/error-text-cap.js';
import type { ApprovalGate, Tool } from '../tools/tool.js';
import { runAgent } from './run-agent.js';

const instructions = createInstructionSnapshot('You are a test agent.');
const allowAll: ApprovalGate = { check: async () => ({ kind: 'allow' }) };

function echoTool(calls: string[] = []): Tool {
  return {
    name: 'echo',
    description: 'Echoes its input.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    risk: 'read',
    execute: async (input) => {
      const text = (input as { text: string }).text;
      calls.push(text);
      return { output: { type: 'text', value: `echo: ${text}` }, metadata: { length: text.length } };
    },
  };
}

function slowTool(started: () => void): Tool {
  return {
    name: 'slow',
    description: 'Waits until cancelled.',
    inputSchema: { type: 'object' },
    risk: 'execute',
    execute: (_input, context) =>
      new Promise((_resolve, reject) => {
        context.signal.addEventListener('abort', () => reject(new Error('killed')), { once: true });
        started();
      }),
  };
}

function collect(): { events: EventEnvelope[]; types: () => ForgeEvent['type'][] } {
  const events: EventEnvelope[] = [];
  return { events, types: () => events.map((envelope) => envelope.event.type) };
}

describe('runAgent', () => {
  it('runs model → tool → model until the model answers, pairing every call with its result', async () => {
    const executed: string[] = [];
    const model = new ScriptedModel([
      {
        text: 'Let me check.',
        toolCalls: [
          { toolName: 'echo', input: { text: 'a' } },
          { toolName: 'echo', input: { text: 'b' } },
        ],
        usage: { inputTokens: 100, outputTokens: 10 },
      },
      {
        toolCalls: [{ toolName: 'echo', input: { text: 'c' } }],
        usage: { inputTokens: 150, cacheReadTokens: 90, outputTokens: 5 },
      },
      { text: 'Done: a b c.', textChunks: 3, usage: { inputTokens: 200, outputTokens: 7 } },
    ]);
    const sink = collect();
    const result = await runAgent({
      model,
      instructions,
      request: 'echo things',
      tools: [echoTool(executed)],
      approvals: allowAll,
      onEvent: (e) => sink.events.push(e),
    });

    expect(result.status).toBe('completed');
    expect(result.text).toBe('Done: a b c.');
    expect(result.steps).toBe(3);
    expect(executed).toEqual(['a', 'b', 'c']);
    expect(result.usage).toEqual({
      inputTokens: 450,
      cacheReadTokens: 90,
      cacheWriteTokens: undefined,
      outputTokens: 22,
      reasoningTokens: undefined,
    });
    expect(result.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(findUnpairedToolCalls(result.messages)).toEqual([]);
    const toolMessage = result.messages[2];
    expect(toolMessage).toMatchObject({
      role: 'tool',
      content: [
        { toolCallId: 'call_1_1', output: { value: 'echo: a' }, metadata: { length: 1 } },
        { toolCallId: 'call_1_2' },
      ],
    });

    // the second request carries the first step's assistant message and tool results as continuation
    expect(model.requests[1]?.continuation.map((message) => message.role)).toEqual(['assistant', 'tool']);
    expect(model.requests[2]?.continuation).toHaveLength(4);
    expect(model.requests.every((request) => request.currentRequest.content === 'echo things')).toBe(true);

    expect(sink.types()).toEqual([
      'run.started',
      'context.budgeted',
      'model.step.started',
      'model.text.delta',
      'model.step.completed',
      'context.usage.reconciled',
      'tool.call.started',
      'tool.call.completed',
      'tool.call.started',
      'tool.call.completed',
      'context.budgeted',
      'model.step.started',
      'model.step.completed',
      'context.usage.reconciled',
      'tool.call.started',
      'tool.call.completed',
      'context.budgeted',
      'model.step.started',
      'model.text.delta',
      'model.text.delta',
      'model.text.delta',
      'model.step.completed',
      'context.usage.reconciled',
      'run.completed',
    ]);
    expect(sink.events.map((envelope) => envelope.sequence)).toEqual(sink.events.map((_, index) => index));
    expect(new Set(sink.events.map((envelope) => envelope.runId))).toEqual(new Set([result.runId]));
    expect(sink.events[0]).toMatchObject({
      schemaVersion: 1,
      event: { type: 'run.started', tools: ['echo'], instructions: { hash: instructions.hash } },
    });
  });

  it('hands each message to onMessage as it is produced, the request first, and waits for it', async () => {
    const seen: string[] = [];
    let pending = 0;
    const model = new ScriptedModel([{ toolCalls: [{ toolName: 'echo', input: { text: 'x' } }] }, { text: 'done' }]);
    const result = await runAgent({
      model,
      instructions,
      request: 'persist me',
      tools: [echoTool()],
      approvals: allowAll,
      session: {
        append: async (message) => {
          expect(pending).toBe(0);
          pending += 1;
          await new Promise((resolve) => setTimeout(resolve, 1));
          seen.push(`${message.role}@${model.requests.length}`);
          pending -= 1;
        },
      },
    });
    // the request is stored before the model is called; each reply before the next step starts
    expect(seen).toEqual(['user@0', 'assistant@1', 'tool@1', 'assistant@2']);
    expect(result.messages).toHaveLength(4);
  });

  it('fails loudly when the host cannot store a message', async () => {
    const model = new ScriptedModel([{ text: 'never sent' }]);
    await expect(
      runAgent({
        model,
        instructions,
        request: 'x',
        session: {
          append: () => {
            throw new Error('disk full');
          },
        },
      }),
    ).rejects.toThrow('disk full');
    expect(model.requests).toHaveLength(0);
  });

  it('passes history through untouched and keeps it out of the new messages', async () => {
    const history: Message[] = [
      { role: 'user', content: 'earlier question' },
      { role: 'assistant', content: [{ type: 'text', text: 'earlier answer' }] },
    ];
    const frozen = structuredClone(history);
    const model = new ScriptedModel([{ text: 'ok' }]);
    const result = await runAgent({
      model,
      instructions,
      request: 'next',
      session: { history: { messages: history } },
    });
    expect(model.requests[0]?.history).toEqual(frozen);
    expect(history).toEqual(frozen);
    expect(result.messages).toEqual([
      { role: 'user', content: 'next' },
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
    ]);
  });

  it('stops at the step limit with every tool call answered', async () => {
    const loop = { toolCalls: [{ toolName: 'echo', input: { text: 'again' } }] };
    const model = new ScriptedModel([loop, loop, loop, loop]);
    const result = await runAgent({
      model,
      instructions,
      request: 'loop',
      tools: [echoTool()],
      approvals: allowAll,
      maxSteps: 3,
    });
    expect(result.status).toBe('step_limit');
    expect(result.steps).toBe(3);
    expect(model.requests).toHaveLength(3);
    expect(result.error?.message).toContain('3 model steps');
    expect(findUnpairedToolCalls(result.messages)).toEqual([]);
  });

  it('cancels during a running tool, records the call as cancelled and never calls the model again', async () => {
    const controller = new AbortController();
    const model = new ScriptedModel([
      {
        toolCalls: [
          { toolName: 'slow', input: {} },
          { toolName: 'echo', input: { text: 'never' } },
        ],
      },
      { text: 'should not be reached' },
    ]);
    const executed: string[] = [];
    const sink = collect();
    const result = await runAgent({
      model,
      instructions,
      request: 'wait',
      tools: [slowTool(() => controller.abort()), echoTool(executed)],
      approvals: allowAll,
      signal: controller.signal,
      onEvent: (e) => sink.events.push(e),
    });
    expect(result.status).toBe('cancelled');
    expect(model.requests).toHaveLength(1);
    expect(executed).toEqual([]);
    expect(findUnpairedToolCalls(result.messages)).toEqual([]);
    const results = result.messages.at(-1);
    expect(results).toMatchObject({
      role: 'tool',
      content: [
        { toolName: 'slow', output: { type: 'error-text' } },
        { toolName: 'echo', output: { type: 'error-text' } },
      ],
    });
    const outcomes = sink.events.flatMap((e) => (e.event.type === 'tool.call.completed' ? [e.event.outcome] : []));
    expect(outcomes).toEqual(['cancelled', 'cancelled']);
    expect(sink.types().at(-1)).toBe('run.completed');
  });

  it('stops waiting for a tool that ignores cancellation', async () => {
    const controller = new AbortController();
    const stubborn: Tool = {
      ...echoTool(),
      name: 'stubborn',
      execute: () => new Promise(() => setTimeout(() => controller.abort(), 5)),
    };
    const model = new ScriptedModel([{ toolCalls: [{ toolName: 'stubborn', input: {} }] }]);
    const result = await runAgent({
      model,
      instructions,
      request: 'x',
      tools: [stubborn],
      approvals: allowAll,
      signal: controller.signal,
    });
    expect(result.status).toBe('cancelled');
    expect(findUnpairedToolCalls(result.messages)).toEqual([]);
  });

  it('cancels while the model is streaming', async () => {
    const controller = new AbortController();
    const model = new ScriptedModel([{ hang: true }]);
    setTimeout(() => controller.abort(), 10);
    const result = await runAgent({ model, instructions, request: 'hang', signal: controller.signal });
    expect(result.status).toBe('cancelled');
    expect(result.messages).toEqual([{ role: 'user', content: 'hang' }]);
  });

  it.each([
    ['context_overflow', new ContextOverflowError({ message: 'too long', limitTokens: 1000 }), false],
    ['rate_limited', new RateLimitError({ message: 'slow down', retryAfterMs: 2000 }), true],
    ['transport', new TransportError({ message: 'stream cut', status: 502 }), true],
    ['unexpected', new Error('boom'), false],
  ])('ends a run with a typed failure when the model raises %s', async (code, error, retryable) => {
    const model = new ScriptedModel([{ text: 'partial ans', error }]);
    const sink = collect();
    const result = await runAgent({ model, instructions, request: 'go', onEvent: (e) => sink.events.push(e) });
    expect(result.status).toBe('failed');
    expect(result.error).toEqual({ code, message: error.message, isRetryable: retryable });
    // What had streamed is kept, marked as cut so a resumed session does not take it for a whole answer.
    expect(result.text).toBe(`partial ans${CUT_ANSWER_NOTE}`);
    expect(sink.types().slice(-2)).toEqual(['model.step.failed', 'run.failed']);
  });

  it('never keeps a tool call from a broken stream', async () => {
    const executed: string[] = [];
    const model = new ScriptedModel([
      { toolCalls: [{ toolName: 'echo', input: { text: 'x' } }], error: new TransportError({ message: 'cut' }) },
    ]);
    const result = await runAgent({
      model,
      instructions,
      request: 'go',
      tools: [echoTool(executed)],
      approvals: allowAll,
    });
    expect(result.status).toBe('failed');
    expect(executed).toEqual([]);
    expect(result.messages).toEqual([{ role: 'user', content: 'go' }]);
  });

  it('answers unknown tools and denied calls with errors the model can read', async () => {
    const executed: string[] = [];
    const model = new ScriptedModel([
      {
        toolCalls: [
          { toolName: 'rm_rf', input: {} },
          { toolName: 'echo', input: { text: 'denied' } },
        ],
      },
      { text: 'understood' },
    ]);
    const deny: ApprovalGate = { check: async () => ({ kind: 'deny', reason: 'not now' }) };
    const result = await runAgent({ model, instructions, request: 'go', tools: [echoTool(executed)], approvals: deny });
    expect(result.status).toBe('completed');
    expect(executed).toEqual([]);
    const [unknown, denied] = (result.messages[2] as Extract<Message, { role: 'tool' }>).content;
    expect(unknown?.output).toEqual({ type: 'error-text', value: 'Unknown tool "rm_rf". Available tools: echo.' });
    expect(denied?.output).toEqual({ type: 'error-text', value: 'Not run: denied — not now.' });
  });

  it('refuses a call its tool checks as impossible before asking the approval gate, and says why in the event', async () => {
    const executed: string[] = [];
    const asked: string[] = [];
    const picky: Tool = {
      ...echoTool(executed),
      check: async (input) =>
        (input as { text: string }).text === 'bad' ? 'bad is not a word this tool echoes' : undefined,
    };
    const gate: ApprovalGate = { check: async (call) => (asked.push(JSON.stringify(call.input)), { kind: 'allow' }) };
    const model = new ScriptedModel([
      {
        toolCalls: [
          { toolName: 'echo', input: { text: 'bad' } },
          { toolName: 'echo', input: { text: 'good' } },
        ],
      },
      { text: 'ok' },
    ]);
    const sink = collect();
    const result = await runAgent({
      model,
      instructions,
      request: 'go',
      tools: [picky],
      approvals: gate,
      onEvent: (envelope) => sink.events.push(envelope),
    });
    expect(asked).toEqual(['{"text":"good"}']);
    expect(executed).toEqual(['good']);
    const [refused, ran] = (result.messages[2] as Extract<Message, { role: 'tool' }>).content;
    expect(refused?.output).toEqual({ type: 'error-text', value: 'bad is not a word this tool echoes' });
    expect(ran?.output).toEqual({ type: 'text', value: 'echo: good' });
    const completed = sink.events.flatMap(({ event }) =>
      event.type === 'tool.call.completed' ? [[event.outcome, event.resultSummary]] : [],
    );
    expect(completed).toEqual([
      ['error', 'refused: bad is not a word this tool echoes'],
      ['ok', 'echo returned 1 line(s)'],
    ]);
  });

  it("puts the tool's own one-line summary of a call on its completed event", async () => {
    const summarizing: Tool = {
      ...echoTool(),
      execute: async () => ({ output: { type: 'text', value: 'echo: x' }, summary: 'echoed x (1 word)' }),
    };
    const model = new ScriptedModel([{ toolCalls: [{ toolName: 'echo', input: { text: 'x' } }] }, { text: 'ok' }]);
    const sink = collect();
    await runAgent({
      model,
      instructions,
      request: 'go',
      tools: [summarizing],
      approvals: allowAll,
      onEvent: (envelope) => sink.events.push(envelope),
    });
    expect(sink.events.map(({ event }) => event).find((event) => event.type === 'tool.call.completed')).toMatchObject({
      outcome: 'ok',
      resultSummary: 'echoed x (1 word)',
    });
  });

  it('denies tool calls when no approval gate is given', async () => {
    const executed: string[] = [];
    const model = new ScriptedModel([{ toolCalls: [{ toolName: 'echo', input: { text: 'x' } }] }, { text: 'ok' }]);
    const result = await runAgent({ model, instructions, request: 'go', tools: [echoTool(executed)] });
    expect(executed).toEqual([]);
    expect(result.messages[2]).toMatchObject({
      content: [{ output: { type: 'error-text', value: expect.stringContaining('no approval policy') } }],
    });
  });

  it('turns a throwing tool into an error result and goes on', async () => {
    const failing: Tool = {
      ...echoTool(),
      name: 'fail',
      execute: async () => {
        throw new Error('disk on fire');
      },
    };
    const model = new ScriptedModel([{ toolCalls: [{ toolName: 'fail', input: {} }] }, { text: 'recovered' }]);
    const result = await runAgent({ model, instructions, request: 'go', tools: [failing], approvals: allowAll });
    expect(result.status).toBe('completed');
    expect(result.messages[2]).toMatchObject({
      content: [{ output: { type: 'error-text', value: 'Tool "fail" failed: disk on fire' } }],
    });
  });

  it('caps a huge error text, thrown or returned, at 64 KiB keeping its start and end (a 10 MB line quoted in an error)', async () => {
    const line = `start-${'x'.repeat(10 * 1024 * 1024)}-end`;
    const throwing: Tool = {
      ...echoTool(),
      name: 'throws',
      execute: async () => {
        throw new Error(line);
      },
    };
    const returning: Tool = {
      ...echoTool(),
      name: 'returns',
      execute: async () => ({ output: { type: 'error-text', value: line } }),
    };
    const model = new ScriptedModel([
      {
        toolCalls: [
          { toolName: 'throws', input: {} },
          { toolName: 'returns', input: {} },
        ],
      },
      { text: 'recovered' },
    ]);
    const result = await runAgent({
      model,
      instructions,
      request: 'go',
      tools: [throwing, returning],
      approvals: allowAll,
    });
    const values = (result.messages[2] as Extract<Message, { role: 'tool' }>).content.map((part) =>
      part.output.type === 'error-text' ? part.output.value : '',
    );
    expect(values).toHaveLength(2);
    for (const value of values) {
      expect(Buffer.byteLength(value)).toBeLessThanOrEqual(MAX_TOOL_ERROR_TEXT_BYTES + 100);
      expect(value).toMatch(/^(Tool "throws" failed: )?start-x+\n\[… \d+ bytes of this error left out …\]\nx+-end$/);
    }
    expect(JSON.stringify(model.requests[1])).not.toContain('x'.repeat(MAX_TOOL_ERROR_TEXT_BYTES));
  }, 60_000);

  it('loads instructions once and sends the same frozen text at every step', async () => {
    let loads = 0;
    const loader = async () => {
      loads += 1;
      return createInstructionSnapshot(`version ${loads}`);
    };
    const model = new ScriptedModel([
      { toolCalls: [{ toolName: 'echo', input: { text: 'x' } }] },
      { toolCalls: [{ toolName: 'echo', input: { text: 'y' } }] },
      { text: 'end' },
    ]);
    const result = await runAgent({
      model,
      instructions: loader,
      request: 'go',
      tools: [echoTool()],
      approvals: allowAll,
    });
    expect(loads).toBe(1);
    expect(new Set(model.requests.map((request) => request.instructions))).toEqual(new Set(['version 1']));
    expect(result.instructionsHash).toBe(createInstructionSnapshot('version 1').hash);
  });

  it('refuses unsafe ids and duplicate tool names before contacting the model', async () => {
    const model = new ScriptedModel([{ text: 'never' }]);
    await expect(runAgent({ model, instructions, request: 'x', runId: '../escape' })).rejects.toThrow('Invalid run id');
    await expect(runAgent({ model, instructions, request: 'x', tools: [echoTool(), echoTool()] })).rejects.toThrow(
      'Two tools are named "echo"',
    );
    await expect(runAgent({ model, instructions, request: 'x', maxSteps: 0 })).rejects.toThrow('maxSteps');
    expect(model.requests).toHaveLength(0);
  });
});
