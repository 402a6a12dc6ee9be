import { startLoopbackProvider, type LoopbackProvider } from '@forge/loopback-provider';
import { conformanceTuning, expectRequestsExtendEachOther, runTwoTurns } from '@forge/loopback-provider/conformance';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compatibleModelFor } from './test-model.test-helpers.js';

/* Local servers (llama.cpp, vLLM) reuse a prompt prefix only when it is unchanged: requests must only grow at the end. */

let server: LoopbackProvider;
beforeEach(async () => {
  server = await startLoopbackProvider({ promptCache: {} });
});
afterEach(async () => {
  await server.close();
});

describe('OpenAI-compatible request prefix', () => {
  it('grows only at the end, within a turn after a tool call and across the turn boundary', async () => {
    const { runs, steps } = await runTwoTurns(server, compatibleModelFor(server, conformanceTuning));
    expect(runs.map((run) => run.status)).toEqual(['completed', 'completed']);
    expect(server.requests).toHaveLength(4);
    expectRequestsExtendEachOther(server.requests);
    expect(steps.slice(1).every((usage) => (usage.cacheReadTokens ?? 0) > 0)).toBe(true);
  });
});
