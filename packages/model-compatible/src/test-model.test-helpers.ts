import { countMessagesWithEstimate } from '@forge/core';
import { estimateWithFakeTokenizer } from '@forge/core/testing';
import type { ModelProfile } from '@forge/ai-sdk-bridge';
import type { LoopbackProvider } from '@forge/loopback-provider';
import type { AdapterTuning } from '@forge/loopback-provider/conformance';
import { CompatibleModel } from './compatible-adapter.js';
import type { CompatibleModelOptions } from './settings.js';

export const testProfile: ModelProfile = {
  capabilities: {
    contextWindowTokens: 32_768,
    maxOutputTokens: 4096,
    nativeCompaction: 'unsupported',
    continuationProjection: 'adapter-owned',
    estimation: 'conservative-fallback',
    source: 'config',
  },
  estimate: async (request) => estimateWithFakeTokenizer(request),
  countMessages: (messages) => countMessagesWithEstimate(estimateWithFakeTokenizer, messages),
};

export function compatibleModelFor(
  server: LoopbackProvider,
  tuning: AdapterTuning,
  options: Partial<CompatibleModelOptions> = {},
): CompatibleModel {
  return new CompatibleModel(
    {
      name: 'local',
      baseURL: server.baseURL,
      modelId: 'qwen2.5-coder:7b',
      contextWindowTokens: 32_768,
      apiKeyVariable: 'LOCAL_LLM_KEY',
      env: { LOCAL_LLM_KEY: 'test-key' },
      retry: tuning.retry,
      idleTimeoutMs: tuning.idleTimeoutMs,
      ...options,
    },
    testProfile,
  );
}
