import assert from 'node:assert/strict';
import { createInstructionSnapshot, runAgent } from '@forge/core';
import { startLoopbackProvider, turn } from '@forge/loopback-provider';
import { createOpenAIModel } from '@forge/model-openai';

// The loopback server stands in for api.openai.com; without `baseURL` and `apiKey` the adapter
// reads OPENAI_BASE_URL (default https://api.openai.com/v1) and OPENAI_API_KEY.
const server = await startLoopbackProvider();
try {
  server.enqueue(turn({ text: 'The answer is 42.', usage: { inputTokens: 30, outputTokens: 6 } }));
  const model = createOpenAIModel({ modelId: 'gpt-5.1', baseURL: server.baseURL, apiKey: 'sk-example' });
  // Limits come from the capability table: gpt-5.1 accepts 272,000 input tokens of its 400,000.
  assert.equal(model.capabilities.contextWindowTokens, 400_000);

  const result = await runAgent({
    model,
    request: 'What is the answer?',
    instructions: createInstructionSnapshot('Answer in one sentence.'),
    tools: [],
    approvals: { check: async () => ({ kind: 'allow' }) },
  });
  assert.equal(result.status, 'completed');
  assert.equal(result.text, 'The answer is 42.');
  assert.equal(result.usage.inputTokens, 30);
  // Sent to the Responses API without storing anything at OpenAI.
  const body = server.requests[0]?.body as { store?: boolean } | undefined;
  assert.equal(body?.store, false);
} finally {
  await server.close();
}
