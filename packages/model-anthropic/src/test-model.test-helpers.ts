import { countMessagesWithEstimate } from '@forge/core';
import { estimateWithFakeTokenizer } from '@forge/core/testing';
import type { ModelProfile } from '@forge/ai-sdk-bridge';
import type { LoopbackProvider } from '@forge/loopback-provider';
import type { AdapterTuning } from '@forge/loopback-provider/conformance';
import { AnthropicModel } from './anthropic-adapter.js';
import type { AnthropicModelOptions } from './settings.js';

export const TEST_MODEL_ID = 'claude-sonnet-4-6';

/** Limits and estimator for tests that do not exercise the capability table. */
export const testProfile: ModelProfile = {
  capabilities: {
    contextWindowTokens: 1_000_000,
    maxOutputTokens: 64_000,
    nativeCompaction: 'unsupported',
    continuationProjection: 'adapter-owned',
    estimation: 'conservative-fallback',
    source: 'table',
  },
  estimate: async (request) => estimateWithFakeTokenizer(request),
  countMessages: (messages) => countMessagesWithEstimate(estimateWithFakeTokenizer, messages),
};

/** An Anthropic adapter pointed at the loopback server, with the suite's tuning. */
export function anthropicModelFor(
  server: LoopbackProvider,
  tuning: AdapterTuning,
  options: Partial<AnthropicModelOptions> = {},
): AnthropicModel {
  return new AnthropicModel(
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
