import { cacheHitRatio } from '@forge/core/pricing';
import { startLoopbackProvider, type LoopbackProvider } from '@forge/loopback-provider';
import { conformanceTuning, expectRequestsExtendEachOther, runTwoTurns } from '@forge/loopback-provider/conformance';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countO200kTokens, loadO200kTokenizer } from './o200k-estimator.js';
import { openAIModelFor } from './test-model.test-helpers.js';

/*
 * A cache-friendly conversation over the Responses API: every request is the previous one plus new
 * items at the end, the prompt cache key is the same for the whole conversation, and the loopback
 * server — caching prefixes the way OpenAI documents, counting with o200k — serves each request's
 * predecessor from its cache.
 */

let server: LoopbackProvider;
beforeEach(async () => {
  const tokenizer = await loadO200kTokenizer();
  server = await startLoopbackProvider({ promptCache: { countTokens: (text) => countO200kTokens(tokenizer, text) } });
});
afterEach(async () => {
  await server.close();
});

describe('OpenAI request prefix', () => {
  it('grows only at the end, within a turn after a tool call and across the turn boundary', async () => {
    const { runs } = await runTwoTurns(server, openAIModelFor(server, conformanceTuning, { reasoningEffort: 'low' }));
    expect(runs.map((run) => run.status)).toEqual(['completed', 'completed']);
    expect(server.requests).toHaveLength(4);
    expectRequestsExtendEachOther(server.requests);
  });

  it('sends one prompt cache key for the whole conversation, and the cache serves each request its predecessor', async () => {
    const { steps } = await runTwoTurns(server, openAIModelFor(server, conformanceTuning));
    const keys = server.requests.map((request) => (request.body as { prompt_cache_key?: unknown }).prompt_cache_key);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^forge-[0-9a-f]{48}$/);
    expect(steps).toHaveLength(4);
    expect(steps[0]?.cacheReadTokens).toBe(0);
    for (const usage of steps.slice(1)) expect(cacheHitRatio(usage)).toBeGreaterThan(0.9);
  });
});
