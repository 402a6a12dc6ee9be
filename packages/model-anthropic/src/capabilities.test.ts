import { AuthError, InvalidInputError } from '@forge/core';
import { priceUsage } from '@forge/core/pricing';
import { describe, expect, it } from 'vitest';
import { ANTHROPIC_CAPABILITIES, ANTHROPIC_CAPABILITY_TABLE, anthropicPromptCache } from './capabilities.js';
import { createAnthropicModel } from './create-anthropic-model.js';
import { ANTHROPIC_PRICE_TABLE, ANTHROPIC_RATES } from './prices.js';
import { checkCacheLifetime, resolveAnthropicSettings } from './settings.js';

describe('Anthropic capabilities', () => {
  it('records window, output limit and minimum cacheable prefix per model', () => {
    expect(ANTHROPIC_CAPABILITIES.capabilities('claude-sonnet-4-6')).toMatchObject({
      contextWindowTokens: 1_000_000,
      maxOutputTokens: 64_000,
      source: 'table',
      estimation: 'conservative-fallback',
    });
    expect(ANTHROPIC_CAPABILITIES.capabilities('claude-haiku-4-5-20251001')).toMatchObject({
      contextWindowTokens: 200_000,
      maxOutputTokens: 64_000,
    });
    expect(anthropicPromptCache('claude-sonnet-4-6')).toEqual({
      minimumTokens: 2048,
      incrementTokens: 1,
      lifetimeMs: 300_000,
    });
    expect(anthropicPromptCache('claude-sonnet-4-5', '1h')).toEqual({
      minimumTokens: 1024,
      incrementTokens: 1,
      lifetimeMs: 3_600_000,
    });
    expect(anthropicPromptCache('claude-opus-9').minimumTokens).toBe(4096);
  });

  it('prices every id with source and date, writes at 1.25× for 5 minutes and 2× for an hour, reads at 0.1×', () => {
    for (const [id, entry] of Object.entries(ANTHROPIC_CAPABILITY_TABLE)) {
      expect(entry.prices, id).toMatchObject({
        currency: 'USD',
        source: 'table',
        asOf: '2026-12-04',
        reference: 'https://platform.claude.com/docs/en/about-claude/pricing',
      });
      const rates = ANTHROPIC_RATES[id];
      expect(rates?.cacheWrite['5m'], id).toBeCloseTo((rates?.input ?? 0) * 1.25, 9);
      expect(rates?.cacheWrite['1h'], id).toBeCloseTo((rates?.input ?? 0) * 2, 9);
      expect(rates?.cacheRead, id).toBeCloseTo((rates?.input ?? 0) * 0.1, 9);
    }
    expect(ANTHROPIC_PRICE_TABLE['claude-sonnet-4-6']).toMatchObject({
      inputPerMillion: 3,
      cachedInputPerMillion: 0.3,
      cacheWritePerMillion: 3.75,
      outputPerMillion: 15,
    });
    expect(ANTHROPIC_PRICE_TABLE['claude-opus-4-6']).toMatchObject({ inputPerMillion: 5, outputPerMillion: 25 });
    expect(ANTHROPIC_CAPABILITIES.capabilities('claude-opus-9').prices).toBeUndefined();
  });

  it('charges a session its lifetime: the 1-hour adapter bills writes at 2× input', () => {
    const usage = {
      inputTokens: 1_000_000,
      cacheReadTokens: 0,
      cacheWriteTokens: 1_000_000,
      outputTokens: 0,
      reasoningTokens: undefined,
    };
    const fiveMinutes = createAnthropicModel({ modelId: 'claude-sonnet-4-6', apiKey: 'k', env: {} });
    const oneHour = createAnthropicModel({ modelId: 'claude-sonnet-4-6', apiKey: 'k', env: {}, cacheLifetime: '1h' });
    expect(priceUsage(usage, fiveMinutes.capabilities.prices!)?.total).toBeCloseTo(3.75, 9);
    expect(priceUsage(usage, oneHour.capabilities.prices!)?.total).toBeCloseTo(6, 9);
    expect(oneHour.capabilities.promptCache).toMatchObject({ lifetimeMs: 3_600_000, minimumTokens: 2048 });
    expect(oneHour.capabilities.prices?.note).toMatch(/1h rate; 5m writes bill \$3\.75/);
  });

  it('counts conservatively, and falls back for an unknown id', async () => {
    const model = createAnthropicModel({ modelId: 'claude-opus-9', apiKey: 'k', env: {} });
    expect(model.capabilities).toMatchObject({ contextWindowTokens: 32_768, source: 'fallback' });
    const estimate = await model.estimateRequestTokens({
      instructions: 'Be brief.',
      history: [],
      currentRequest: { role: 'user', content: 'hello' },
      continuation: [],
      tools: [],
    });
    expect(estimate).toMatchObject({ method: 'conservative-fallback', confidence: 'estimated' });
  });
});

describe('Anthropic settings', () => {
  it('names ANTHROPIC_API_KEY when no key is set, and reads ANTHROPIC_BASE_URL', () => {
    expect(() => resolveAnthropicSettings({ modelId: 'claude-sonnet-4-6', env: {} })).toThrow(AuthError);
    expect(() => resolveAnthropicSettings({ modelId: 'claude-sonnet-4-6', env: {} })).toThrow(
      /ANTHROPIC_API_KEY is not set/,
    );
    expect(
      resolveAnthropicSettings({
        modelId: 'claude-sonnet-4-6',
        env: { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: 'http://proxy.local/v1/' },
      }),
    ).toMatchObject({ baseURL: 'http://proxy.local/v1', keyVariable: 'ANTHROPIC_API_KEY' });
    expect(resolveAnthropicSettings({ modelId: 'claude-sonnet-4-6', env: { ANTHROPIC_API_KEY: 'k' } }).baseURL).toBe(
      'https://api.anthropic.com/v1',
    );
  });

  it('accepts only the lifetimes Anthropic offers', () => {
    expect(checkCacheLifetime(undefined)).toBe('5m');
    expect(checkCacheLifetime('1h')).toBe('1h');
    expect(() => checkCacheLifetime('10m', 'anthropic.cacheLifetime')).toThrow(InvalidInputError);
    expect(() => checkCacheLifetime('10m', 'anthropic.cacheLifetime')).toThrow(
      'anthropic.cacheLifetime is "10m"; Anthropic caches for "5m" or "1h" only. Set one of those.',
    );
    expect(() =>
      createAnthropicModel({ modelId: 'claude-sonnet-4-6', apiKey: 'k', env: {}, cacheLifetime: '2h' as '1h' }),
    ).toThrow(/"2h"/);
  });
});
