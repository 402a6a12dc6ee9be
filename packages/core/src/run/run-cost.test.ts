import { describe, expect, it } from 'vitest';
import type { EventEnvelope, ForgeEvent } from '../events/events.js';
import { createInstructionSnapshot } from '../instructions.js';
import type { PriceSheet } from '../pricing/price-sheet.js';
import { ScriptedModel } from '../testing/index.js';
import type { ApprovalGate, Tool } from '../tools/tool.js';
import { runAgent } from './run-agent.js';

const instructions = createInstructionSnapshot('You are a test agent.');
const allowAll: ApprovalGate = { check: async () => ({ kind: 'allow' }) };
const prices: PriceSheet = {
  currency: 'USD',
  inputPerMillion: 2,
  cachedInputPerMillion: 0.2,
  outputPerMillion: 10,
  source: 'config',
  reference: 'test',
};
const noop: Tool = {
  name: 'noop',
  description: 'Does nothing.',
  inputSchema: { type: 'object' },
  risk: 'read',
  execute: async () => ({ output: { type: 'text', value: 'done' } }),
};

function eventsOf<T extends ForgeEvent['type']>(
  events: readonly EventEnvelope[],
  type: T,
): Extract<ForgeEvent, { type: T }>[] {
  return events
    .map((envelope) => envelope.event)
    .filter((event): event is Extract<ForgeEvent, { type: T }> => event.type === type);
}

describe('runAgent prices its steps', () => {
  it('puts each step cost, the run total and the cache-hit ratio in the events and the result', async () => {
    const model = new ScriptedModel(
      [
        {
          toolCalls: [{ toolName: 'noop', input: {} }],
          usage: { inputTokens: 10_000, cacheReadTokens: 0, outputTokens: 100 },
        },
        { text: 'ok', usage: { inputTokens: 12_000, cacheReadTokens: 9_984, outputTokens: 50 } },
      ],
      { capabilities: { prices } },
    );
    const events: EventEnvelope[] = [];
    const result = await runAgent({
      model,
      instructions,
      request: 'go',
      tools: [noop],
      approvals: allowAll,
      onEvent: (event) => events.push(event),
    });

    expect(eventsOf(events, 'run.started')[0]?.prices).toEqual(prices);
    const steps = eventsOf(events, 'model.step.completed');
    expect(steps[0]?.cost?.total).toBeCloseTo(0.02 + 0.001, 12);
    expect(steps[1]?.cost?.freshInput).toBeCloseTo((2016 * 2) / 1e6, 12);
    expect(steps[1]?.cost?.cachedInput).toBeCloseTo((9984 * 0.2) / 1e6, 12);
    const completed = eventsOf(events, 'run.completed')[0];
    expect(completed?.cost?.total).toBeCloseTo((steps[0]?.cost?.total ?? 0) + (steps[1]?.cost?.total ?? 0), 12);
    expect(completed?.cacheHitRatio).toBeCloseTo(9984 / 22_000, 12);
    expect(completed?.unpricedSteps).toBeUndefined();
    expect(result.cost).toEqual(completed?.cost);
    expect(result.cacheHitRatio).toBe(completed?.cacheHitRatio);
  });

  it('reports a model without prices in tokens only, and counts steps whose usage cannot be priced', async () => {
    const unpriced = new ScriptedModel([{ text: 'ok', usage: { inputTokens: 100, outputTokens: 5 } }]);
    const events: EventEnvelope[] = [];
    const result = await runAgent({
      model: unpriced,
      instructions,
      request: 'go',
      onEvent: (event) => events.push(event),
    });
    expect(result.cost).toBeUndefined();
    expect(eventsOf(events, 'model.step.completed')[0]).not.toHaveProperty('cost');
    expect(eventsOf(events, 'run.started')[0]).not.toHaveProperty('prices');

    const partial = new ScriptedModel(
      [
        { toolCalls: [{ toolName: 'noop', input: {} }], usage: { inputTokens: 100 } },
        { text: 'ok', usage: { inputTokens: 200, outputTokens: 5 } },
      ],
      { capabilities: { prices } },
    );
    const priced = await runAgent({ model: partial, instructions, request: 'go', tools: [noop], approvals: allowAll });
    expect(priced.unpricedSteps).toBe(1);
    expect(priced.cost?.total).toBeCloseTo((200 * 2 + 5 * 10) / 1e6, 12);
  });

  it('sends every request of a conversation with one prompt cache key, derived from the session', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ toolName: 'noop', input: {} }] },
      { text: 'ok' },
      { text: 'again' },
    ]);
    await runAgent({
      model,
      instructions,
      request: 'one',
      tools: [noop],
      approvals: allowAll,
      session: { id: 'sess_a' },
    });
    await runAgent({
      model,
      instructions,
      request: 'two',
      tools: [noop],
      approvals: allowAll,
      session: { id: 'sess_a' },
    });
    const keys = model.callOptions.map((options) => options.promptCacheKey);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^forge-/);

    const other = new ScriptedModel([{ text: 'ok' }]);
    await runAgent({ model: other, instructions, request: 'one', tools: [noop], session: { id: 'sess_b' } });
    expect(other.callOptions[0]?.promptCacheKey).not.toBe(keys[0]);
  });
});
