import {
  countMessagesWithEstimate,
  type Message,
  type ModelAdapter,
  type ModelCapabilities,
  type ModelRequest,
  type TokenEstimate,
} from '@forge/core';
import { estimateWithFakeTokenizer } from '@forge/core/testing';
import { AnthropicModel } from '@forge/model-anthropic';
import { CompatibleModel } from '@forge/model-compatible';
import { DeepSeekModel } from '@forge/model-deepseek';
import { OpenAIModel } from '@forge/model-openai';

/** Retries and the idle timeout the suites give adapters, so faults resolve in milliseconds. */
export interface AdapterTuning {
  readonly maxRetries: number;
  readonly idleTimeoutMs: number;
}

export type AdapterName = 'openai' | 'deepseek' | 'compatible' | 'anthropic';

export const ADAPTER_NAMES: readonly AdapterName[] = ['openai', 'deepseek', 'compatible', 'anthropic'];

const estimate = async (request: ModelRequest): Promise<TokenEstimate> => estimateWithFakeTokenizer(request);
const countMessages = (messages: readonly Message[]) => countMessagesWithEstimate(estimateWithFakeTokenizer, messages);

function capabilities(
  contextWindowTokens: number,
  nativeCompaction: ModelCapabilities['nativeCompaction'],
): ModelCapabilities {
  return {
    contextWindowTokens,
    maxOutputTokens: 4096,
    nativeCompaction,
    continuationProjection: 'adapter-owned',
    estimation: 'conservative-fallback',
    source: 'config',
  };
}

/**
 * One of the real adapters pointed at `baseURL` (a loopback server): OpenAI speaks the Responses
 * API, DeepSeek and the compatible adapter Chat Completions, Anthropic the Messages API. The key is
 * a test value.
 */
export function adapterFor(
  name: AdapterName,
  baseURL: string,
  tuning: AdapterTuning,
  contextWindowTokens = 64_000,
): ModelAdapter {
  const common = {
    baseURL,
    apiKey: 'test-key',
    env: {},
    retry: { maxRetries: tuning.maxRetries, baseDelayMs: 1, maxDelayMs: 2_000 },
    idleTimeoutMs: tuning.idleTimeoutMs,
  };
  switch (name) {
    case 'openai':
      return new OpenAIModel(
        { ...common, modelId: 'gpt-5.1' },
        { capabilities: capabilities(contextWindowTokens, 'unsupported'), estimate, countMessages },
      );
    case 'deepseek':
      return new DeepSeekModel(
        { ...common, modelId: 'deepseek-chat' },
        { capabilities: capabilities(contextWindowTokens, 'unsupported'), estimate, countMessages },
      );
    case 'anthropic':
      return new AnthropicModel(
        { ...common, modelId: 'claude-sonnet-4-6' },
        { capabilities: capabilities(contextWindowTokens, 'unsupported'), estimate, countMessages },
      );
    case 'compatible':
      return new CompatibleModel(
        {
          ...common,
          name: 'local',
          modelId: 'qwen2.5-coder:7b',
          contextWindowTokens,
          apiKeyVariable: 'LOCAL_KEY',
          env: { LOCAL_KEY: 'test-key' },
        },
        { capabilities: capabilities(contextWindowTokens, 'unsupported'), estimate, countMessages },
      );
  }
}

/** The loopback endpoint an adapter calls. */
export function endpointOf(name: AdapterName): 'responses' | 'chat' | 'messages' {
  if (name === 'anthropic') return 'messages';
  return name === 'openai' ? 'responses' : 'chat';
}
