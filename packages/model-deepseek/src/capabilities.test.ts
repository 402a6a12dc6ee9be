import { describe, expect, it } from 'vitest';
import { DEEPSEEK_CAPABILITIES, DEEPSEEK_CAPABILITY_TABLE } from './capabilities.js';
import { DEEPSEEK_PRICE_TABLE, DEEPSEEK_PROMPT_CACHE } from './prices.js';
import { createDeepSeekModel } from './create-deepseek-model.js';

describe('DeepSeek capabilities', () => {
  it('gives the V4 ids and the legacy aliases a 1,000,000-token window and 384,000 output', () => {
    for (const id of ['deepseek-flash', 'deepseek-v4-pro', 'deepseek-v4-flash', 'deepseek-chat', 'deepseek-reasoner']) {
      expect(DEEPSEEK_CAPABILITIES.capabilities(id), id).toMatchObject({
        contextWindowTokens: 1_000_000,
        maxOutputTokens: 384_000,
        source: 'table',
        estimation: 'provider-tokenizer',
      });
    }
    expect(Object.keys(DEEPSEEK_CAPABILITY_TABLE)).toHaveLength(5);
  });

  it("prices every id at DeepSeek's peak rates, dated and sourced, with hits far below misses", () => {
    for (const [id, entry] of Object.entries(DEEPSEEK_CAPABILITY_TABLE)) {
      expect(entry.prices, id).toMatchObject({
        currency: 'USD',
        source: 'table',
        asOf: '2026-12-01',
        reference: 'https://api-docs.deepseek.com/quick_start/pricing',
      });
      expect(entry.prices?.note, id).toMatch(/peak/);
      expect((entry.prices?.cachedInputPerMillion ?? 1) / (entry.prices?.inputPerMillion ?? 1), id).toBeLessThan(0.05);
    }
    expect(DEEPSEEK_PRICE_TABLE['deepseek-v4-pro']).toMatchObject({
      inputPerMillion: 1.32,
      cachedInputPerMillion: 0.044,
      outputPerMillion: 3.96,
    });
    expect(DEEPSEEK_CAPABILITIES.capabilities('deepseek-v4-flash').promptCache).toBe(DEEPSEEK_PROMPT_CACHE);
    expect(DEEPSEEK_CAPABILITIES.capabilities('deepseek-v5-preview').prices).toBeUndefined();
  });

  it('falls back conservatively for an unknown id and takes configured limits as config', () => {
    expect(DEEPSEEK_CAPABILITIES.capabilities('deepseek-v5-preview')).toMatchObject({
      contextWindowTokens: 32_768,
      source: 'fallback',
    });
    expect(
      DEEPSEEK_CAPABILITIES.capabilities('deepseek-chat', { configured: { contextWindowTokens: 128_000 } }),
    ).toMatchObject({ contextWindowTokens: 128_000, source: 'config' });
  });

  it('builds an adapter that counts with the DeepSeek-V3 tokenizer', async () => {
    const model = createDeepSeekModel({ modelId: 'deepseek-v4-pro', apiKey: 'test-key', env: {} });
    expect(model.capabilities).toMatchObject({
      contextWindowTokens: 1_000_000,
      source: 'table',
      nativeCompaction: 'unsupported',
    });
    const estimate = await model.estimateRequestTokens({
      instructions: '',
      history: [],
      currentRequest: { role: 'user', content: '上下文' },
      continuation: [],
      tools: [],
    });
    expect(estimate).toMatchObject({ method: 'provider-tokenizer', confidence: 'exact' });
    expect(estimate.categories.request).toBeLessThan(6);
  });
});
