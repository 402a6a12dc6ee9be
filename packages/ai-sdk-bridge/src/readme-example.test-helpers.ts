import assert from 'node:assert/strict';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  AiSdkModel,
  modelProfile,
  providerSettings,
  type AdapterOptions,
  type AiSdkVendor,
} from '@forge/ai-sdk-bridge';
import { createConservativeEstimator, createInstructionSnapshot, runAgent } from '@forge/core';
import { startLoopbackProvider, turn } from '@forge/loopback-provider';

interface AcmeOptions extends AdapterOptions {
  readonly modelId: string;
}

// A vendor is what differs: its endpoint and key variables, its AI SDK provider, its quirks.
const acme: AiSdkVendor<AcmeOptions> = {
  provider: 'acme',
  modelId: (options) => options.modelId,
  endpoint: () => ({
    providerLabel: 'Acme',
    baseURLVariable: 'ACME_BASE_URL',
    keyVariable: 'ACME_API_KEY',
    keyRequired: true,
  }),
  nativeCompaction: 'unsupported',
  languageModel: (context) =>
    createOpenAICompatible({ ...providerSettings(context), name: 'acme', includeUsage: true }).chatModel(
      context.options.modelId,
    ),
};

const server = await startLoopbackProvider();
try {
  server.enqueue(turn({ text: 'Hello from Acme.' }));
  const capabilities = {
    contextWindowTokens: 32_768,
    nativeCompaction: 'unsupported',
    continuationProjection: 'adapter-owned',
    estimation: 'conservative-fallback',
    source: 'config',
  } as const;
  const env = { ACME_BASE_URL: server.baseURL, ACME_API_KEY: 'example-key' };
  const model = new AiSdkModel(
    acme,
    { modelId: 'acme-1', env },
    modelProfile(capabilities, createConservativeEstimator()),
  );

  const result = await runAgent({
    model,
    request: 'Say hello.',
    instructions: createInstructionSnapshot('Be brief.'),
    tools: [],
    approvals: { check: async () => ({ kind: 'allow' }) },
  });
  assert.equal(result.text, 'Hello from Acme.');
  // A missing key names the variable to set.
  assert.throws(
    () =>
      new AiSdkModel(
        acme,
        { modelId: 'acme-1', env: { ACME_BASE_URL: server.baseURL } },
        modelProfile(capabilities, createConservativeEstimator()),
      ),
    /ACME_API_KEY is not set/,
  );
} finally {
  await server.close();
}
