import { describe, expect, it } from 'vitest';
import type { EventEnvelope, ForgeEvent } from '../events/events.js';
import { createInstructionSnapshot } from '../instructions.js';
import { findUnpairedToolCalls, type Message } from '../messages.js';
import type { ModelRequest, TokenEstimate } from '../model/adapter.js';
import { runAgent } from '../run/run-agent.js';
import { estimateWithFakeTokenizer, ScriptedModel } from '../testing/index.js';
import type { ApprovalGate, Tool } from '../tools/tool.js';
import { createEstimatorAccuracyTracker } from './accuracy-tracker.js';

const instructions = createInstructionSnapshot('You are a test agent.');
const allowAll: ApprovalGate = { check: async () => ({ kind: 'allow' }) };

function outputTool(output: string): Tool {
  return {
    name: 'dump',
    description: 'Returns a fixed text.',
    inputSchema: { type: 'object' },
    risk: 'read',
    execute: async () => ({ output: { type: 'text', value: output } }),
  };
}

type EventOf<T extends ForgeEvent['type']> = Extract<ForgeEvent, { type: T }>;

function recorder() {
  const events: EventEnvelope[] = [];
  return {
    onEvent: (envelope: EventEnvelope) => events.push(envelope),
    events,
    types: () => events.map((envelope) => envelope.event.type),
    of: <T extends ForgeEvent['type']>(type: T): EventOf<T>[] =>
      events.map((envelope) => envelope.event).filter((event): event is EventOf<T> => event.type === type),
  };
}

/** A fixed estimate, whatever the request: lets a test pick exact budget numbers. */
function fixedEstimate(categories: Partial<TokenEstimate['categories']>): (request: ModelRequest) => TokenEstimate {
  const full = {
    instructions: 0,
    checkpoint: 0,
    history: 0,
    request: 0,
    continuation: 0,
    toolSchemas: 0,
    overhead: 0,
    ...categories,
  };
  return () => ({
    tokens: Object.values(full).reduce((sum, value) => sum + value, 0),
    method: 'provider-tokenizer',
    confidence: 'exact',
    categories: full,
  });
}

describe('preflight in runAgent', () => {
  it('budgets every step before the provider call, continuation steps included, and sets usage beside the right estimate', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ toolName: 'dump', input: {} }], usage: { inputTokens: 111 } },
      { toolCalls: [{ toolName: 'dump', input: {} }], usage: { inputTokens: 222 } },
      { text: 'done', usage: { inputTokens: 333 } },
    ]);
    const sink = recorder();
    const result = await runAgent({
      model,
      instructions,
      request: 'go',
      tools: [outputTool('x'.repeat(400))],
      approvals: allowAll,
      onEvent: sink.onEvent,
    });
    expect(result.status).toBe('completed');

    const budgeted = sink.of('context.budgeted');
    expect(budgeted.map((event) => event.step)).toEqual([1, 2, 3]);
    // each budget comes before its step starts, i.e. before the provider is called
    for (const step of [1, 2, 3]) {
      const budgetAt = sink.events.findIndex(
        (envelope) => envelope.event.type === 'context.budgeted' && envelope.event.step === step,
      );
      const startAt = sink.events.findIndex(
        (envelope) => envelope.event.type === 'model.step.started' && envelope.event.step === step,
      );
      expect(budgetAt).toBeGreaterThanOrEqual(0);
      expect(budgetAt).toBeLessThan(startAt);
    }
    // the estimator saw exactly the requests that were sent, and continuation grew with the run
    expect(model.estimateRequests).toEqual(model.requests);
    expect(budgeted.map((event) => event.estimate.categories.continuation > 0)).toEqual([false, true, true]);
    expect(budgeted[2]?.estimate.categories.continuation).toBeGreaterThan(
      budgeted[1]?.estimate.categories.continuation ?? Infinity,
    );
    expect(budgeted[0]).toMatchObject({
      model: { provider: 'scripted', modelId: 'scripted-model' },
      windowSource: 'table',
      instructionsHash: instructions.hash,
      toolCount: 1,
      retainedMessages: 0,
      decision: 'ok',
    });
    expect(budgeted[0]?.toolSchemaTokens).toBe(budgeted[0]?.estimate.categories.toolSchemas);
    expect(budgeted[0]?.toolSchemaTokens).toBeGreaterThan(0);

    const reconciled = sink.of('context.usage.reconciled');
    expect(reconciled.map((event) => [event.step, event.reportedInputTokens, event.estimatedTokens])).toEqual(
      budgeted.map((event, index) => [event.step, [111, 222, 333][index], event.estimate.tokens]),
    );
  });

  it.each(['compact', 'shadow'] as const)(
    'in mode %s estimates each request once: preflight reuses what the view rule measured',
    async (mode) => {
      const model = new ScriptedModel([{ toolCalls: [{ toolName: 'dump', input: {} }] }, { text: 'done' }]);
      const sink = recorder();
      const result = await runAgent({
        model,
        instructions,
        request: 'go',
        tools: [outputTool('x'.repeat(400))],
        approvals: allowAll,
        context: { mode },
        onEvent: sink.onEvent,
        session: { contextManager: { fit: async () => ({ kind: 'unchanged' }), shadowStep: async () => {} } },
      });
      expect(result.status).toBe('completed');
      expect(model.estimateRequests).toEqual(model.requests);
      expect(sink.of('context.budgeted').map((event) => event.step)).toEqual([1, 2]);
    },
  );

  it('stops with limit_reached before contacting the provider when mandatory context cannot fit', async () => {
    const model = new ScriptedModel([{ text: 'never sent' }], {
      capabilities: { contextWindowTokens: 1000, maxOutputTokens: 500 },
    });
    const sink = recorder();
    const result = await runAgent({
      model,
      instructions,
      request: 'x'.repeat(4000),
      context: { reservedOutputTokens: 100, bufferTokens: 100 },
      onEvent: sink.onEvent,
    });

    expect(model.requests).toEqual([]);
    expect(result.status).toBe('limit_reached');
    expect(result.steps).toBe(0);
    expect(result.error?.code).toBe('context_limit_reached');
    expect(result.error?.message).toMatch(
      /does not fit scripted:scripted-model: what must be sent needs [\d,]+ tokens .* but only 900 are available for input .*Nothing was sent/,
    );
    expect(sink.types()).toEqual(['run.started', 'context.budgeted', 'context.limit_reached', 'run.completed']);
    const [limit] = sink.of('context.limit_reached');
    expect(limit?.budget.availableInputTokens).toBe(900);
    expect(limit?.budget.estimate.categories.request).toBe(1000);
    expect(sink.of('run.completed')[0]?.status).toBe('limit_reached');
  });

  it('stops at the step whose continuation no longer fits, leaving every tool call paired', async () => {
    const model = new ScriptedModel([{ toolCalls: [{ toolName: 'dump', input: {} }] }, { text: 'never sent' }], {
      capabilities: { contextWindowTokens: 3000 },
    });
    const sink = recorder();
    const result = await runAgent({
      model,
      instructions,
      request: 'read it',
      tools: [outputTool('y'.repeat(12_000))],
      approvals: allowAll,
      context: { reservedOutputTokens: 500, bufferTokens: 500 },
      onEvent: sink.onEvent,
    });
    expect(model.requests).toHaveLength(1);
    expect(result.status).toBe('limit_reached');
    expect(result.steps).toBe(1);
    expect(sink.of('context.limit_reached')[0]?.step).toBe(2);
    expect(findUnpairedToolCalls(result.messages)).toEqual([]);
  });

  it('does not count cached reads as extra context: a cache-heavy step raises no warning', async () => {
    const capabilities = { contextWindowTokens: 10_000 };
    const context = { reservedOutputTokens: 500, bufferTokens: 1000 };
    const estimate = fixedEstimate({ instructions: 500, request: 500 });
    // available 9,000, warning above 7,200; input 7,000 of which 6,000 cached: 13,000 if cache reads were added on top
    const cached = new ScriptedModel(
      [{ text: 'ok', usage: { inputTokens: 7000, cacheReadTokens: 6000, cacheWriteTokens: 100 } }],
      { capabilities, estimate },
    );
    const cachedSink = recorder();
    await runAgent({ model: cached, instructions, request: 'hi', context, onEvent: cachedSink.onEvent });
    expect(cachedSink.of('context.warning')).toEqual([]);
    expect(cachedSink.of('context.usage.reconciled')[0]).toMatchObject({
      reportedInputTokens: 7000,
      cacheReadTokens: 6000,
      cacheWriteTokens: 100,
      errorTokens: -6000,
    });

    // the provider's own input count past the threshold does warn
    const full = new ScriptedModel([{ text: 'ok', usage: { inputTokens: 7300, cacheReadTokens: 0 } }], {
      capabilities,
      estimate,
    });
    const fullSink = recorder();
    await runAgent({ model: full, instructions, request: 'hi', context, onEvent: fullSink.onEvent });
    expect(fullSink.of('context.warning')).toMatchObject([
      { reason: 'provider_usage', usedTokens: 7300, warnAtTokens: 7200 },
    ]);
  });

  it('warns past the threshold in warn mode and sends history unchanged', async () => {
    const history: Message[] = [
      { role: 'user', content: 'earlier question' },
      { role: 'assistant', content: [{ type: 'text', text: 'earlier answer' }] },
    ];
    const model = new ScriptedModel([{ text: 'ok' }], {
      capabilities: { contextWindowTokens: 10_000 },
      estimate: fixedEstimate({ request: 100, history: 8000 }),
    });
    const sink = recorder();
    const result = await runAgent({
      model,
      instructions,
      request: 'hi',
      session: { history: { messages: history } },
      context: { reservedOutputTokens: 500, bufferTokens: 1000 },
      onEvent: sink.onEvent,
    });
    expect(result.status).toBe('completed');
    expect(model.requests[0]?.history).toBe(history);
    expect(sink.of('context.warning')).toMatchObject([
      { step: 1, reason: 'threshold', usedTokens: 8100, availableInputTokens: 9000 },
    ]);
    expect(sink.of('context.warning')[0]?.message).toMatch(/90% of the 9,000 available for input/);
    expect(sink.of('context.budgeted')[0]).toMatchObject({
      decision: 'warn',
      retainedMessages: 2,
      overBudget: false,
      view: { coveredMessages: 0, verbatimMessages: 2, omitted: 0 },
    });
  });

  it.each(['off', 'warn', 'shadow'] as const)(
    'in mode %s stops before the provider call when the whole conversation does not fit, saying how to continue',
    async (mode) => {
      const history: Message[] = [{ role: 'user', content: 'earlier question' }];
      const model = new ScriptedModel([{ text: 'never sent' }], {
        capabilities: { contextWindowTokens: 10_000 },
        estimate: fixedEstimate({ request: 100, history: 9000 }),
      });
      const sink = recorder();
      const result = await runAgent({
        model,
        instructions,
        request: 'hi',
        session: { history: { messages: history } },
        context: { mode, reservedOutputTokens: 500, bufferTokens: 1000 },
        onEvent: sink.onEvent,
      });
      expect(result.status).toBe('limit_reached');
      expect(model.requests).toEqual([]);
      expect(sink.of('context.limit_reached')).toMatchObject([{ step: 1, reason: 'whole_history' }]);
      expect(result.error?.message).toMatch(
        /whole conversation no longer fits .* Nothing was sent, and mode \w+ never shortens history\. .*forge compact --last.*--context-mode compact.*or start a new session/,
      );
    },
  );

  it('in mode off takes no warning decision, still reporting the budget and the usage', async () => {
    const model = new ScriptedModel([{ text: 'sent', usage: { inputTokens: 5 } }], {
      capabilities: { contextWindowTokens: 1000 },
    });
    const sink = recorder();
    const result = await runAgent({
      model,
      instructions,
      request: 'x'.repeat(3000),
      context: { mode: 'off', reservedOutputTokens: 100, bufferTokens: 100 },
      onEvent: sink.onEvent,
    });
    expect(result.status).toBe('completed');
    expect(model.requests).toHaveLength(1);
    expect(sink.of('context.budgeted')[0]).toMatchObject({ mode: 'off', decision: 'off' });
    expect(sink.of('context.budgeted')[0]?.estimate.tokens).toBeGreaterThan(
      sink.of('context.budgeted')[0]?.warnAtTokens ?? Infinity,
    );
    expect(sink.of('context.usage.reconciled')[0]?.reportedInputTokens).toBe(5);
    expect(sink.of('context.warning')).toEqual([]);
    expect(sink.of('context.limit_reached')).toEqual([]);
  });

  it('flags a model whose estimator undercounts beyond the buffer three times, once', async () => {
    const tracker = createEstimatorAccuracyTracker();
    const estimate = fixedEstimate({ request: 100 });
    const sink = recorder();
    for (let run = 0; run < 4; run += 1) {
      const model = new ScriptedModel([{ text: 'ok', usage: { inputTokens: 100 + 1000 + 1 } }], { estimate });
      await runAgent({
        model,
        instructions,
        request: 'hi',
        context: { bufferTokens: 1000, reservedOutputTokens: 10 },
        session: { capabilities: { estimatorAccuracy: tracker } },
        onEvent: sink.onEvent,
      });
    }
    const flagged = sink.of('context.estimator.flagged');
    expect(flagged).toHaveLength(1);
    expect(flagged[0]?.accuracy).toMatchObject({
      samples: 3,
      undercountsBeyondBuffer: 3,
      unsafeForAutoCompaction: true,
    });
    expect(sink.of('context.usage.reconciled').map((event) => event.accuracy.unsafeForAutoCompaction)).toEqual([
      false,
      false,
      true,
      true,
    ]);
    expect(tracker.get('scripted', 'scripted-model')).toMatchObject({ samples: 4, maxUndercountTokens: 1001 });
  });

  it('fails before sending when the estimator throws, unless the mode is off', async () => {
    const broken = () => {
      throw new Error('tokenizer missing');
    };
    const model = new ScriptedModel([{ text: 'ok' }], { estimate: broken });
    const result = await runAgent({ model, instructions, request: 'hi' });
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'context_estimate_failed' });
    expect(result.error?.message).toContain('tokenizer missing');
    expect(model.requests).toEqual([]);

    const lenient = new ScriptedModel([{ text: 'ok' }], { estimate: broken });
    expect((await runAgent({ model: lenient, instructions, request: 'hi', context: { mode: 'off' } })).status).toBe(
      'completed',
    );
  });

  it('rejects a policy that cannot be a budget before the run starts', async () => {
    const model = new ScriptedModel([{ text: 'ok' }], { estimate: estimateWithFakeTokenizer });
    await expect(runAgent({ model, instructions, request: 'hi', context: { warnAtRatio: 0 } })).rejects.toThrow(
      /context\.warnAtRatio/,
    );
  });
});
