import type { ModelProfile } from '@forge/ai-sdk-bridge';
import type { LoopbackProvider } from '@forge/loopback-provider';
import type { AdapterTuning } from '@forge/loopback-provider/conformance';
import { countMessagesWithEstimate } from '@forge/core';
import { estimateWithFakeTokenizer } from '@forge/core/testing';
import { OpenAIModel } from './openai-adapter.js';
import type { OpenAIModelOptions } from './settings.js';

export const TEST_MODEL_ID = 'gpt-5.1';

/** Limits and estimator for tests that do not exercise the capability table. */
export const testProfile: ModelProfile = {
  capabilities: {
    contextWindowTokens: 400_000,
    maxOutputTokens: 128_000,
    nativeCompaction: 'opaque-provider-item',
    continuationProjection: 'adapter-owned',
    estimation: 'conservative-fallback',
    source: 'table',
  },
  estimate: async (request) => estimateWithFakeTokenizer(request),
  countMessages: (messages) => countMessagesWithEstimate(estimateWithFakeTokenizer, messages),
};

/** An OpenAI adapter pointed at the loopback server, with the suite's tuning. */
export function openAIModelFor(
  server: LoopbackProvider,
  tuning: AdapterTuning,
  options: Partial<OpenAIModelOptions> = {},
): OpenAIModel {
  return new OpenAIModel(
    {
      modelId: TEST_MODEL_ID,
      baseURL: server.baseURL,
      apiKey: 'test-key',
      env: {},
      retry: tuning.retry,
      idleTimeoutMs: tuning.idleTimeoutMs,
      ...options,
    },
    testProfile,
  );
}
