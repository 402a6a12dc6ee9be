import { countTextConservatively, type Message, type ModelRequest } from '@forge/core';
import { cacheHitRatio } from '@forge/core/pricing';
import { startLoopbackProvider, turn, type LoopbackProvider } from '@forge/loopback-provider';
import {
  conformanceTuning,
  drain,
  expectRequestsExtendEachOther,
  runTwoTurns,
} from '@forge/loopback-provider/conformance';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { anthropicPromptCache } from './capabilities.js';
import { anthropicModelFor, TEST_MODEL_ID } from './test-model.test-helpers.js';

/*
 * Anthropic caches only up to breakpoints, so what the loopback server (caching like Anthropic:
 * nothing without a breakpoint, the model's minimum prefix, exact tokens) reads for each request is
 * what the breakpoints earned. The conversation must still grow only at the end: the breakpoints
 * move, the content before them does not.
 */

type Block = Record<string, unknown>;
type Body = { system: Block[]; tools?: Block[]; messages: { role: string; content: Block[] }[] };

const BREAKPOINT = { type: 'ephemeral', ttl: '5m' };

let server: LoopbackProvider;
beforeEach(async () => {
  server = await startLoopbackProvider({
    promptCache: { rules: anthropicPromptCache(TEST_MODEL_ID), countTokens: countTextConservatively },
  });
});
afterEach(async () => {
  await server.close();
});

function bodyOf(index: number): Body {
  return server.requests[index]?.body as Body;
}

/** Where a request's breakpoints are: `system`, or `messages.<message>.<block>`. */
function breakpointsOf(body: Body): string[] {
  const places = body.system.some((block) => block['cache_control'] !== undefined) ? ['system'] : [];
  body.messages.forEach((message, index) => {
    message.content.forEach((block, blockIndex) => {
      if (block['cache_control'] !== undefined) places.push(`messages.${index}.${blockIndex}`);
    });
  });
  return places;
}

function withoutBreakpoints(body: Body): unknown {
  return JSON.parse(JSON.stringify(body, (key, value: unknown) => (key === 'cache_control' ? undefined : value)));
}

describe('Anthropic request prefix and breakpoints', () => {
  it('shares the cached prefix between consecutive requests: each reads what the one before wrote', async () => {
    const { runs, steps } = await runTwoTurns(server, anthropicModelFor(server, conformanceTuning));
    expect(runs.map((run) => run.status)).toEqual(['completed', 'completed']);
    expect(server.requests).toHaveLength(4);
    expectRequestsExtendEachOther(server.requests);
    expect(steps[0]).toMatchObject({ cacheReadTokens: 0 });
    expect(steps[0]?.cacheWriteTokens).toBe(steps[0]?.inputTokens);
    for (const usage of steps.slice(1)) {
      expect(cacheHitRatio(usage)).toBeGreaterThan(0.9);
      expect(usage.cacheWriteTokens).toBeGreaterThan(0);
    }
    for (const index of [0, 1, 2, 3]) {
      const body = bodyOf(index);
      const newest = body.messages.length - 1;
      expect(breakpointsOf(body)).toEqual([
        'system',
        `messages.${newest}.${(body.messages[newest]?.content.length ?? 0) - 1}`,
      ]);
      expect(body.system[0]?.['cache_control']).toEqual(BREAKPOINT);
    }
  });

  it('caches nothing for a request that marks no breakpoint, as Anthropic does', async () => {
    // Forge always marks the newest message, so the unmarked request is sent by hand.
    server.enqueue(turn({ text: 'a' }));
    const response = await fetch(`${server.baseURL}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
      body: JSON.stringify({
        model: TEST_MODEL_ID,
        max_tokens: 10,
        stream: true,
        system: 'x'.repeat(40_000),
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    const text = await response.text();
    expect(text).toContain('"cache_read_input_tokens":0');
    expect(text).toContain('"cache_creation_input_tokens":0');
  });

  it('moves the breakpoints at a compaction and nothing else; the instructions and tools stay cached', async () => {
    const instructions = Array.from(
      { length: 200 },
      (_, index) => `Rule ${index + 1}: read a file before editing it.`,
    ).join('\n');
    const history: Message[] = Array.from({ length: 6 }, (_, index): Message[] => [
      { role: 'user', content: `Question ${index}: ${'context '.repeat(300)}` },
      { role: 'assistant', content: [{ type: 'text', text: `Answer ${index}.` }] },
    ]).flat();
    const tools = [
      { name: 'read_note', description: 'Reads a note.', inputSchema: { type: 'object', properties: {} } },
    ];
    const before: ModelRequest = {
      instructions,
      history,
      currentRequest: { role: 'user', content: 'Next question.' },
      continuation: [],
      tools,
    };
    const after: ModelRequest = {
      ...before,
      checkpoint: 'GOAL: answer the questions.\nFACTS_VALID: the sky is green.',
      history: history.slice(-2),
    };
    const model = anthropicModelFor(server, conformanceTuning);
    server.enqueue(turn({ text: 'one' }), turn({ text: 'two' }));
    const first = await drain(model.doStream(before, {}));
    const second = await drain(model.doStream(after, {}));
    const [beforeBody, afterBody] = [bodyOf(0), bodyOf(1)];
    expect(breakpointsOf(beforeBody)).toEqual(['system', 'messages.12.0']);
    // The checkpoint and the first kept user message travel in one user message; the breakpoint ends the checkpoint's block.
    expect(breakpointsOf(afterBody)).toEqual(['system', 'messages.0.0', 'messages.2.0']);
    expect(afterBody.messages[0]?.content[0]?.['text']).toContain('FACTS_VALID: the sky is green.');
    expect(afterBody.system).toEqual(beforeBody.system);
    expect(afterBody.tools).toEqual(beforeBody.tools);

    server.enqueue(turn({ text: 'unmarked' }));
    const unmarked = anthropicModelFor(server, conformanceTuning);
    await drain(unmarked.doStream(after, {}));
    // Without its markers the request is exactly the one sent: the breakpoints add nothing else.
    expect(withoutBreakpoints(bodyOf(2))).toEqual(withoutBreakpoints(afterBody));

    const usage = (parts: readonly unknown[]) =>
      (parts.at(-1) as { usage: { cacheReadTokens: number; inputTokens: number } }).usage;
    const instructionTokens = countTextConservatively(instructions);
    expect(usage(second.parts).cacheReadTokens).toBeGreaterThanOrEqual(instructionTokens);
    expect(usage(second.parts).cacheReadTokens).toBeLessThan(usage(first.parts).inputTokens / 2);
  });
});
