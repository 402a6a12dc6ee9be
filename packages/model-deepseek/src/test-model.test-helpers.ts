import { countMessagesWithEstimate } from '@forge/core';
import { estimateWithFakeTokenizer } from '@forge/core/testing';
import type { ModelProfile } from '@forge/ai-sdk-bridge';
import { DEEPSEEK_LOOPBACK, type LoopbackProvider, type LoopbackProviderOptions } from '@forge/loopback-provider';
import type { AdapterTuning } from '@forge/loopback-provider/conformance';
import { DeepSeekModel } from './deepseek-adapter.js';
import type { DeepSeekModelOptions } from './settings.js';

export const TEST_MODEL_ID = 'deepseek-v4-pro';

/** The loopback server as DeepSeek. */
export const deepSeekServerOptions: LoopbackProviderOptions = DEEPSEEK_LOOPBACK;

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

export function deepSeekModelFor(
  server: LoopbackProvider,
  tuning: AdapterTuning,
  options: Partial<DeepSeekModelOptions> = {},
): DeepSeekModel {
  return new DeepSeekModel(
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
