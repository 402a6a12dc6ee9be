import assert from 'node:assert/strict';
import { createInstructionSnapshot, runAgent } from '@forge/core';
import { startLoopbackProvider, turn } from '@forge/loopback-provider';
import { createAnthropicModel } from '@forge/model-anthropic';

// The loopback server acts as api.anthropic.com; without `baseURL` and `apiKey` the adapter reads
// ANTHROPIC_BASE_URL (default https://api.anthropic.com/v1) and ANTHROPIC_API_KEY.
const server = await startLoopbackProvider();
try {
  server.enqueue(
    turn({
      text: 'Hello!',
      usage: { inputTokens: 3000, cachedInputTokens: 2048, cacheWriteTokens: 900, outputTokens: 9 },
    }),
  );
  const model = createAnthropicModel({
    modelId: 'claude-sonnet-4-6',
    baseURL: server.baseURL,
    apiKey: 'sk-ant-example',
    cacheLifetime: '1h',
  });

  const result = await runAgent({
    model,
    request: 'Say hello.',
    instructions: createInstructionSnapshot('Be brief.'),
    tools: [],
    approvals: { check: async () => ({ kind: 'allow' }) },
  });
  assert.equal(result.text, 'Hello!');
  // Cache reads and writes are reported apart, and writes are priced at the 1-hour rate ($6 per 1M).
  assert.equal(result.usage.cacheReadTokens, 2048);
  assert.equal(result.usage.cacheWriteTokens, 900);
  assert.equal(model.capabilities.prices?.cacheWritePerMillion, 6);
  // The instructions carry a one-hour breakpoint.
  assert.match(server.requests[0]?.rawBody ?? '', /"cache_control":\{"type":"ephemeral","ttl":"1h"\}/);
} finally {
  await server.close();
}
