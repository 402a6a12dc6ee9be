import assert from 'node:assert/strict';
import { createInstructionSnapshot, runAgent } from '@forge/core';
import { DEEPSEEK_LOOPBACK, startLoopbackProvider, turn } from '@forge/loopback-provider';
import { createDeepSeekModel } from '@forge/model-deepseek';

// The loopback server acts as api.deepseek.com; without `baseURL` and `apiKey` the adapter reads
// DEEPSEEK_BASE_URL (default https://api.deepseek.com) and DEEPSEEK_API_KEY.
const server = await startLoopbackProvider(DEEPSEEK_LOOPBACK);
try {
  server.enqueue(
    turn({
      reasoning: 'A short greeting will do.',
      text: 'Hello!',
      usage: { inputTokens: 40, cachedInputTokens: 32, outputTokens: 9 },
    }),
  );
  const model = createDeepSeekModel({ modelId: 'deepseek-v4-pro', baseURL: server.baseURL, apiKey: 'sk-example' });

  const result = await runAgent({
    model,
    request: 'Say hello.',
    instructions: createInstructionSnapshot('Be brief.'),
    tools: [],
    approvals: { check: async () => ({ kind: 'allow' }) },
  });
  assert.equal(result.text, 'Hello!');
  // DeepSeek's cache hits are reported as cache-read tokens.
  assert.equal(result.usage.cacheReadTokens, 32);
  // The reasoning is kept in the transcript, to be sent back on later requests.
  assert.ok(
    result.messages.some(
      (message) => message.role === 'assistant' && message.content.some((part) => part.type === 'reasoning'),
    ),
  );
} finally {
  await server.close();
}
