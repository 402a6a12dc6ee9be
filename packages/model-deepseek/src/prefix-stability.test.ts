import { cacheHitRatio } from '@forge/core/pricing';
import { startLoopbackProvider, type LoopbackProvider } from '@forge/loopback-provider';
import { conformanceTuning, expectRequestsExtendEachOther, runTwoTurns } from '@forge/loopback-provider/conformance';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEEPSEEK_PROMPT_CACHE } from './prices.js';
import { deepSeekModelFor, deepSeekServerOptions } from './test-model.test-helpers.js';

/*
 * DeepSeek caches request prefixes on its own (no key): the conversation must only grow at the
 * end, reasoning_content included, so each request hits what the previous one left.
 */

let server: LoopbackProvider;
beforeEach(async () => {
  server = await startLoopbackProvider({ ...deepSeekServerOptions, promptCache: { rules: DEEPSEEK_PROMPT_CACHE } });
});
afterEach(async () => {
  await server.close();
});

describe('DeepSeek request prefix', () => {
  for (const modelId of ['deepseek-v4-pro', 'deepseek-flash']) {
    it(`${modelId}: grows only at the end, within a turn after a tool call and across the turn boundary`, async () => {
      const { runs, steps } = await runTwoTurns(server, deepSeekModelFor(server, conformanceTuning, { modelId }));
      expect(runs.map((run) => run.status)).toEqual(['completed', 'completed']);
      expect(server.requests).toHaveLength(4);
      expectRequestsExtendEachOther(server.requests);
      expect(
        server.requests.every((request) => (request.body as Record<string, unknown>)['prompt_cache_key'] === undefined),
      ).toBe(true);
      for (const usage of steps.slice(1)) expect(cacheHitRatio(usage)).toBeGreaterThan(0.9);
    });
  }
});
