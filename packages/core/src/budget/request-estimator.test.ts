import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../messages.js';
import type { ModelRequest, ToolDefinition } from '../model/adapter.js';
import { createConservativeEstimator } from './conservative-estimator.js';
import { createRequestEstimator, DEFAULT_FRAMING_OVERHEAD } from './request-estimator.js';

/** One token per character: easy to reason about in assertions. */
const perCharacter = createRequestEstimator({
  countText: (text) => text.length,
  method: 'provider-tokenizer',
  confidence: 'exact',
});

const readFile: ToolDefinition = {
  name: 'read_file',
  description: 'Read a file of the workspace.',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    instructions: 'Be brief.',
    history: [],
    currentRequest: { role: 'user', content: 'hello' },
    continuation: [],
    tools: [],
    ...overrides,
  };
}

const toolTurn: Message[] = [
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'look' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path: 'a.ts' } },
    ],
  },
  {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 'c1', toolName: 'read_file', output: { type: 'text', value: 'export {}' } },
    ],
  },
];

describe('createRequestEstimator', () => {
  it('counts each category from its own content and puts framing in overhead', () => {
    const estimate = perCharacter.estimate(
      request({ history: [{ role: 'user', content: 'earlier' }], continuation: toolTurn, checkpoint: 'summary' }),
    );
    const { categories } = estimate;
    expect(categories.instructions).toBe('Be brief.'.length);
    expect(categories.checkpoint).toBe('summary'.length);
    expect(categories.history).toBe('earlier'.length);
    expect(categories.request).toBe('hello'.length);
    // reasoning text, then tool name + call id + JSON arguments, then tool name + call id + output
    expect(categories.continuation).toBe(
      4 +
        ('read_file'.length + 2 + JSON.stringify({ path: 'a.ts' }).length) +
        ('read_file'.length + 2 + 'export {}'.length),
    );
    const o = DEFAULT_FRAMING_OVERHEAD;
    // instructions, checkpoint, history, request, two continuation messages
    expect(categories.overhead).toBe(
      o.perRequest + 6 * o.perMessage + o.perReasoning + o.perToolCall + o.perToolResult,
    );
    expect(estimate).toMatchObject({ method: 'provider-tokenizer', confidence: 'exact' });
  });

  it('counts advertised tool schemas as the wire JSON plus a wrapper per tool', () => {
    const without = perCharacter.estimate(request());
    const withTool = perCharacter.estimate(request({ tools: [readFile] }));
    const wire = JSON.stringify({
      description: readFile.description,
      name: readFile.name,
      parameters: { properties: { path: { type: 'string' } }, required: ['path'], type: 'object' },
      type: 'function',
    });
    expect(withTool.categories.toolSchemas).toBe(wire.length);
    expect(withTool.tokens - without.tokens).toBe(wire.length + DEFAULT_FRAMING_OVERHEAD.perToolDefinition);
  });

  it('adds the margin to overhead, so the categories still sum to the total', () => {
    const margined = createRequestEstimator({
      countText: (text) => text.length,
      method: 'sdk',
      confidence: 'estimated',
      overhead: { marginRatio: 0.1 },
    });
    const plain = perCharacter.estimate(request({ continuation: toolTurn }));
    const withMargin = margined.estimate(request({ continuation: toolTurn }));
    const content = plain.tokens - plain.categories.overhead;
    expect(withMargin.categories.overhead - plain.categories.overhead).toBe(Math.ceil(content * 0.1));
  });

  it('has categories that sum to the total for any request', () => {
    const text = fc.string({ maxLength: 40 });
    const part = fc.oneof(
      fc.record({ type: fc.constant('text' as const), text }),
      fc.record({ type: fc.constant('reasoning' as const), text }),
      fc.record({
        type: fc.constant('tool-call' as const),
        toolCallId: fc.string({ minLength: 1, maxLength: 8 }),
        toolName: fc.string({ minLength: 1, maxLength: 8 }),
        input: fc.jsonValue(),
      }),
    );
    const message: fc.Arbitrary<Message> = fc.oneof(
      fc.record({ role: fc.constant('user' as const), content: text }),
      fc.record({
        role: fc.constant('assistant' as const),
        content: fc.array(part, { maxLength: 3 }),
      }) as fc.Arbitrary<Message>,
      fc.record({
        role: fc.constant('tool' as const),
        content: fc.array(
          fc.record({
            type: fc.constant('tool-result' as const),
            toolCallId: fc.constant('c'),
            toolName: fc.constant('t'),
            output: fc.record({ type: fc.constant('text' as const), value: text }),
          }),
          { maxLength: 2 },
        ),
      }),
    );
    const estimator = createConservativeEstimator();
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 6 }),
        fc.array(message, { maxLength: 4 }),
        text,
        fc.option(text, { nil: undefined }),
        (history, continuation, instructions, checkpoint) => {
          const estimate = estimator.estimate(
            request({
              history,
              continuation,
              instructions,
              ...(checkpoint === undefined ? {} : { checkpoint }),
              tools: [readFile],
            }),
          );
          const sum = Object.values(estimate.categories).reduce((total, value) => total + value, 0);
          expect(sum).toBe(estimate.tokens);
          expect(Object.values(estimate.categories).every((value) => Number.isInteger(value) && value >= 0)).toBe(true);
        },
      ),
    );
  });

  it('tokenizes only the new message on a warm preflight, and finds reloaded messages by content', () => {
    const calls: string[] = [];
    const estimator = createRequestEstimator({
      countText: (text) => (calls.push(text), text.length),
      method: 'provider-tokenizer',
      confidence: 'exact',
    });
    const history: Message[] = Array.from({ length: 50 }, (_, index) => ({
      role: 'user',
      content: `message ${index}`,
    }));
    const first = estimator.estimate(request({ history, tools: [readFile] }));
    const coldCalls = calls.length;

    const appended: Message = { role: 'assistant', content: [{ type: 'text', text: 'a new answer' }] };
    const second = estimator.estimate(request({ history: [...history, appended], tools: [{ ...readFile }] }));
    expect(calls.slice(coldCalls)).toEqual(['a new answer']);
    expect(second.categories.history - first.categories.history).toBe('a new answer'.length);

    const reloaded = JSON.parse(JSON.stringify(history)) as Message[];
    const before = estimator.stats();
    const third = estimator.estimate(request({ history: reloaded }));
    // the 50 reloaded messages, and the current request, which `request()` builds anew
    expect(estimator.stats().contentHits - before.contentHits).toBe(51);
    expect(estimator.stats().tokenized).toBe(before.tokenized);
    expect(third.categories.history).toBe(first.categories.history);
  });

  it('recounts a list whose middle changed, even when it is as long as one seen before', () => {
    const estimator = createRequestEstimator({
      countText: (text) => text.length,
      method: 'provider-tokenizer',
      confidence: 'exact',
    });
    const history: Message[] = Array.from({ length: 20 }, (_, index) => ({
      role: 'user',
      content: `message ${index}`,
    }));
    const before = estimator.estimate(request({ history })).categories.history;
    const edited = [...history];
    edited[7] = { role: 'user', content: 'a much longer replacement message' };
    const after = estimator.estimate(request({ history: edited })).categories.history;
    expect(after - before).toBe('a much longer replacement message'.length - 'message 7'.length);
    const mutated = [...history];
    const first = estimator.estimate(request({ history: mutated })).categories.history;
    mutated.push({ role: 'user', content: 'appended' });
    expect(estimator.estimate(request({ history: mutated })).categories.history - first).toBe('appended'.length);
  });

  it('counts a message the same through countMessage as inside a request', () => {
    const estimator = createConservativeEstimator();
    const withTurn = estimator.estimate(request({ history: toolTurn }));
    const without = estimator.estimate(request());
    const counted = toolTurn.reduce((total, message) => total + estimator.countMessage(message), 0);
    expect(withTurn.tokens - without.tokens).toBe(counted);
  });
});
