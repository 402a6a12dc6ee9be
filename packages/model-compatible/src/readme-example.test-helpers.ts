import assert from 'node:assert/strict';
import { createInstructionSnapshot, runAgent } from '@forge/core';
import { startLoopbackProvider, turn } from '@forge/loopback-provider';
import { compatibleModelConfigSchema, createCompatibleModel } from '@forge/model-compatible';

// The loopback server stands in for a local server such as Ollama or vLLM.
const server = await startLoopbackProvider();
try {
  server.enqueue(turn({ text: 'Done.' }));
  // One configuration entry describes the model; no code per vendor.
  const entry = compatibleModelConfigSchema.parse({
    name: 'local',
    baseURL: server.baseURL,
    modelId: 'qwen2.5-coder:7b',
    contextWindowTokens: 32_768,
    apiKeyVariable: 'LOCAL_LLM_KEY',
  });
  const model = createCompatibleModel({ ...entry, env: { LOCAL_LLM_KEY: 'example-key' } });
  // Without a `tokenizer` in the entry, requests are counted with core's conservative estimate.
  assert.equal(model.capabilities.estimation, 'conservative-fallback');

  const result = await runAgent({
    model,
    request: 'Tidy up.',
    instructions: createInstructionSnapshot('You are a careful assistant.'),
    tools: [],
    approvals: { check: async () => ({ kind: 'allow' }) },
  });
  assert.equal(result.text, 'Done.');
  assert.equal(server.requests[0]?.headers['authorization'], 'Bearer example-key');
  const body = server.requests[0]?.body as { model?: string } | undefined;
  assert.equal(body?.model, 'qwen2.5-coder:7b');
} finally {
  await server.close();
}
