import { fileURLToPath } from 'node:url';
import { modelProfile } from '@forge/ai-sdk-bridge';
import { countMessagesWithEstimate, type ModelCapabilities } from '@forge/core';
import { estimateWithFakeTokenizer } from '@forge/core/testing';
import { DEEPSEEK_LOOPBACK } from '@forge/loopback-provider';
import type { ConformanceTarget } from '@forge/loopback-provider/conformance';
import { AnthropicModel } from '@forge/model-anthropic';
import { CompatibleModel } from '@forge/model-compatible';
import { DeepSeekModel } from '@forge/model-deepseek';
import { OpenAIModel } from '@forge/model-openai';

const goldenDirectory = fileURLToPath(new URL('./golden/', import.meta.url));

/** Limits and a deterministic counter: the table checks the wire and the loop, not the tokenizers. */
function profile(contextWindowTokens: number, nativeCompaction: ModelCapabilities['nativeCompaction']) {
  const capabilities: ModelCapabilities = {
    contextWindowTokens,
    maxOutputTokens: 4096,
    nativeCompaction,
    continuationProjection: 'adapter-owned',
    estimation: 'conservative-fallback',
    source: 'config',
  };
  return modelProfile(capabilities, {
    estimate: estimateWithFakeTokenizer,
    countMessages: (messages) => countMessagesWithEstimate(estimateWithFakeTokenizer, messages),
  });
}

/** Every model adapter Forge ships. A new adapter is a new row; the cases are the same for all. */
export const ADAPTER_TABLE: readonly ConformanceTarget[] = [
  {
    name: 'OpenAI Responses',
    id: 'openai',
    goldenDirectory,
    createModel: (server, tuning) =>
      new OpenAIModel(
        { modelId: 'gpt-5.1', baseURL: server.baseURL, apiKey: 'test-key', env: {}, ...tuning },
        profile(400_000, 'opaque-provider-item'),
      ),
  },
  {
    name: 'DeepSeek',
    id: 'deepseek',
    goldenDirectory,
    serverOptions: DEEPSEEK_LOOPBACK,
    createModel: (server, tuning) =>
      new DeepSeekModel(
        { modelId: 'deepseek-v4-pro', baseURL: server.baseURL, apiKey: 'test-key', env: {}, ...tuning },
        profile(1_000_000, 'unsupported'),
      ),
  },
  {
    name: 'Anthropic Messages',
    id: 'anthropic',
    goldenDirectory,
    authHeader: { name: 'x-api-key', value: 'test-key' },
    createModel: (server, tuning) =>
      new AnthropicModel(
        { modelId: 'claude-sonnet-4-6', baseURL: server.baseURL, apiKey: 'test-key', env: {}, ...tuning },
        profile(1_000_000, 'unsupported'),
      ),
  },
  {
    name: 'OpenAI-compatible',
    id: 'compatible',
    goldenDirectory,
    createModel: (server, tuning) =>
      new CompatibleModel(
        {
          name: 'local',
          baseURL: server.baseURL,
          modelId: 'qwen2.5-coder:7b',
          contextWindowTokens: 32_768,
          apiKeyVariable: 'LOCAL_LLM_KEY',
          env: { LOCAL_LLM_KEY: 'test-key' },
          ...tuning,
        },
        profile(32_768, 'unsupported'),
      ),
  },
];
