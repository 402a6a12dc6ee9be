import { describe, expect, it } from 'vitest';
import { compatibleCapabilities } from './capabilities.js';
import { createCompatibleModel } from './create-compatible-model.js';

const ollama = {
  name: 'ollama',
  baseURL: 'http://127.0.0.1:11434/v1',
  modelId: 'qwen2.5-coder:7b',
  contextWindowTokens: 32_768,
  maxOutputTokens: 4096,
};

describe('compatible capabilities', () => {
  it('come from the configuration entry, labelled config', () => {
    expect(compatibleCapabilities(ollama)).toEqual({
      contextWindowTokens: 32_768,
      maxOutputTokens: 4096,
      nativeCompaction: 'unsupported',
      continuationProjection: 'adapter-owned',
      estimation: 'conservative-fallback',
      source: 'config',
    });
  });

  it('have no prices unless configuration sets them: a local server may cost nothing, a gateway anything', () => {
    expect(compatibleCapabilities(ollama).prices).toBeUndefined();
    const prices = {
      currency: 'USD',
      inputPerMillion: 0.6,
      cachedInputPerMillion: 0.06,
      outputPerMillion: 2.4,
      source: 'config',
    } as const;
    expect(createCompatibleModel({ ...ollama, env: {}, prices }).capabilities.prices).toBe(prices);
  });

  it('build an adapter that estimates conservatively', async () => {
    const model = createCompatibleModel({ ...ollama, env: {} });
    expect(model.capabilities).toMatchObject({ contextWindowTokens: 32_768, source: 'config' });
    const estimate = await model.estimateRequestTokens({
      instructions: 'x',
      history: [],
      currentRequest: { role: 'user', content: 'hello world' },
      continuation: [],
      tools: [],
    });
    expect(estimate).toMatchObject({ method: 'conservative-fallback', confidence: 'estimated' });
    expect(estimate.categories.request).toBe(2);
  });
});
