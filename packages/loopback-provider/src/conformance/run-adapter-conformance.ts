import { CancelledError, ContextOverflowError, findUnpairedToolCalls, type ModelAdapter } from '@forge/core';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { turn } from '../replies.js';
import { startLoopbackProvider, type LoopbackProvider } from '../server.js';
import { runFaultConformance } from './fault-conformance.js';
import {
  conformanceTuning,
  drain,
  noteTool,
  occurrencesOfRequest,
  runTurn,
  USER_REQUEST,
  type ConformanceTarget,
} from './fixtures.js';

/** The request core's loop would send for a bare question; used where the suite calls `doStream` directly. */
export function bareRequest(text: string = USER_REQUEST): Parameters<ModelAdapter['doStream']>[0] {
  return {
    instructions: 'You are the conformance test agent.',
    history: [],
    currentRequest: { role: 'user', content: text },
    continuation: [],
    tools: [],
  };
}

/**
 * The conformance suite every model adapter passes, over real HTTP against the loopback
 * provider: text, streaming, a tool round trip and multi-step continuation through core's
 * `runAgent`, usage mapping, overflow classification, cancellation, and the fault behaviour.
 */
export function runAdapterConformance(target: ConformanceTarget): void {
  describe(`${target.name} conformance`, () => {
    let server: LoopbackProvider;
    let model: ModelAdapter;
    beforeEach(async () => {
      server = await startLoopbackProvider(target.serverOptions);
      model = target.createModel(server, conformanceTuning);
    });
    afterEach(async () => {
      await server.close();
    });
    const subject = () => ({ server, model });
    describeTurns(target, subject);
    describeOverflowClassification(subject);
    describeCancellation(subject);
    runFaultConformance(subject);
  });
}

/** The adapter and the loopback server of the running test. */
type Subject = () => { readonly server: LoopbackProvider; readonly model: ModelAdapter };

/** Text, streaming, a tool round trip, multi-step continuation and usage mapping. */
function describeTurns(target: ConformanceTarget, subject: Subject): void {
  it('answers with text, sending the instructions and the request once', async () => {
    const { server, model } = subject();
    server.enqueue(turn({ text: 'The answer is 42.' }));
    const { result } = await runTurn(model);
    expect(result.status).toBe('completed');
    expect(result.text).toBe('The answer is 42.');
    expect(server.requests).toHaveLength(1);
    const auth = target.authHeader ?? { name: 'authorization', value: 'Bearer test-key' };
    expect(server.requests[0]?.headers[auth.name]).toBe(auth.value);
    expect(occurrencesOfRequest(server.requests[0]?.rawBody ?? '')).toBe(1);
    await expectGoldenBody(target, 'text', server.requests[0]?.body);
  });

  it('streams text deltas in order as they arrive', async () => {
    const { server, model } = subject();
    server.enqueue(turn({ text: ['Stream', 'ing ', 'works', '.'] }));
    const { result, events } = await runTurn(model);
    const deltas = events.flatMap((envelope) =>
      envelope.event.type === 'model.text.delta' ? [envelope.event.delta] : [],
    );
    expect(deltas).toEqual(['Stream', 'ing ', 'works', '.']);
    expect(result.text).toBe('Streaming works.');
  });

  it('runs a tool round trip through runAgent and sends the result paired with its call', async () => {
    const { server, model } = subject();
    const tool = noteTool();
    server.enqueue(
      turn({ toolCalls: [{ name: 'read_note', arguments: { name: 'alpha' }, callId: 'call_alpha' }] }),
      turn({ text: 'The sky is green.' }),
    );
    const { result } = await runTurn(model, { tool });
    expect(result.status).toBe('completed');
    expect(tool.calls).toEqual([{ name: 'alpha' }]);
    expect(result.text).toBe('The sky is green.');
    expect(findUnpairedToolCalls(result.messages)).toEqual([]);
    const second = server.requests[1]?.rawBody ?? '';
    expect(second).toContain('call_alpha');
    expect(second).toContain('note alpha: the sky is green');
    expect(occurrencesOfRequest(second)).toBe(1);
  });

  it('continues over several steps, passing reasoning and every call and result back', async () => {
    const { server, model } = subject();
    const tool = noteTool();
    server.enqueue(
      turn({
        reasoning: 'I should read alpha first.',
        encryptedReasoning: 'enc-step-1',
        toolCalls: [{ name: 'read_note', arguments: { name: 'alpha' }, callId: 'call_1' }],
      }),
      turn({
        reasoning: 'Now beta.',
        encryptedReasoning: 'enc-step-2',
        text: 'Reading beta too.',
        toolCalls: [{ name: 'read_note', arguments: { name: 'beta' }, callId: 'call_2' }],
      }),
      turn({ text: 'Both notes say the sky is green.' }),
    );
    const { result } = await runTurn(model, { tool });
    expect(result.status).toBe('completed');
    expect(result.steps).toBe(3);
    expect(tool.calls).toEqual([{ name: 'alpha' }, { name: 'beta' }]);
    expect(server.requests).toHaveLength(3);
    for (const request of server.requests) expect(occurrencesOfRequest(request.rawBody)).toBe(1);
    await expectGoldenBody(target, 'continuation', server.requests[2]?.body);
  });

  it('maps usage into core fields', async () => {
    const { server, model } = subject();
    server.enqueue(
      turn({
        text: 'ok',
        usage: { inputTokens: 1200, cachedInputTokens: 1000, outputTokens: 90, reasoningTokens: 40 },
      }),
    );
    const { result } = await runTurn(model);
    expect(result.usage).toMatchObject({ inputTokens: 1200, cacheReadTokens: 1000, outputTokens: 90 });
    if (target.reportsReasoningTokens !== false) expect(result.usage.reasoningTokens).toBe(40);
  });
}

function describeOverflowClassification(subject: Subject): void {
  describe('overflow classification', () => {
    it('classifies HTTP 400 context_length_exceeded as ContextOverflowError, without retrying', async () => {
      const { server, model } = subject();
      server.enqueue({
        type: 'http-error',
        status: 400,
        code: 'context_length_exceeded',
        message: 'Your input exceeds the context window of this model.',
      });
      const { error } = await drain(model.doStream(bareRequest(), {}));
      expect(ContextOverflowError.isInstance(error)).toBe(true);
      expect(server.requests).toHaveLength(1);
    });

    it('classifies a stream that fails with context_length_exceeded', async () => {
      const { server, model } = subject();
      server.enqueue({
        type: 'stream-failed',
        code: 'context_length_exceeded',
        message: 'Your input exceeds the context window of this model.',
      });
      const { result } = await runTurn(model);
      expect(result.status).toBe('failed');
      expect(result.error?.code).toBe('context_overflow');
    });

    it('falls back to the message, reading the limit and the requested size', async () => {
      const { server, model } = subject();
      server.enqueue({
        type: 'http-error',
        status: 400,
        message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
      });
      const { error } = await drain(model.doStream(bareRequest(), {}));
      expect(ContextOverflowError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ limitTokens: 8192, requestedTokens: 9000 });
    });

    it('does not mistake a token rate limit for an overflow', async () => {
      const { server, model } = subject();
      server.enqueue(
        ...Array.from({ length: 3 }, () => ({
          type: 'http-error' as const,
          status: 429,
          message: 'Rate limit reached on tokens per min: too many tokens requested.',
          headers: { 'retry-after-ms': '1' },
        })),
      );
      const { error } = await drain(model.doStream(bareRequest(), {}));
      expect(ContextOverflowError.isInstance(error)).toBe(false);
      expect(error).toMatchObject({ code: 'rate_limited' });
    });
  });
}

function describeCancellation(subject: Subject): void {
  describe('cancellation', () => {
    it('stops a request that is waiting for the provider', async () => {
      const { server, model } = subject();
      server.enqueue({ type: 'hang', sendHeaders: false });
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      const started = Date.now();
      const { error } = await drain(model.doStream(bareRequest(), { signal: controller.signal }));
      expect(CancelledError.isInstance(error)).toBe(true);
      expect(Date.now() - started).toBeLessThan(conformanceTuning.idleTimeoutMs);
    });

    it('cancels a run mid-stream, keeping the text already streamed', async () => {
      const { server, model } = subject();
      server.enqueue({
        type: 'hang',
        turn: turn({ text: ['Partial ', 'answer', ' never finished'] }),
        afterEvents: 5,
      });
      const controller = new AbortController();
      const { result } = await runTurn(model, {
        signal: controller.signal,
        onEvent: (envelope) => {
          if (envelope.event.type === 'model.text.delta') controller.abort();
        },
      });
      expect(result.status).toBe('cancelled');
      expect(result.text.startsWith('Partial ')).toBe(true);
      expect(findUnpairedToolCalls(result.messages)).toEqual([]);
    });
  });
}

/** The request body as pretty JSON against the row's golden file (`vitest -u` rewrites it). */
async function expectGoldenBody(
  target: ConformanceTarget,
  scenario: 'text' | 'continuation',
  body: unknown,
): Promise<void> {
  await expect(`${JSON.stringify(body, null, 2)}\n`).toMatchFileSnapshot(
    join(target.goldenDirectory, `${target.id}.${scenario}.json`),
  );
}
