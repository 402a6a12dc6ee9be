import * as publishedModels from 'gpt-tokenizer/models';
import { describe, expect, it } from 'vitest';
import { OPENAI_CAPABILITIES, OPENAI_CAPABILITY_TABLE } from './capabilities.js';
import { OPENAI_PRICE_TABLE } from './prices.js';

interface PublishedSpec {
  readonly context_window?: number;
  readonly max_output_tokens?: number;
}

describe('OpenAI capability table', () => {
  it('assigns the published GPT-5 limits: 400,000 window, 128,000 output, input capped at 272,000', () => {
    for (const id of [
      'gpt-5',
      'gpt-5-mini',
      'gpt-5-nano',
      'gpt-5-codex',
      'gpt-5.1',
      'gpt-5.1-codex',
      'gpt-5.1-codex-mini',
      'gpt-5.1-codex-max',
      'gpt-5.2',
      'gpt-5.2-codex',
      'gpt-5.3-codex',
    ]) {
      expect(OPENAI_CAPABILITY_TABLE[id], id).toMatchObject({
        contextWindowTokens: 400_000,
        maxOutputTokens: 128_000,
        maxInputTokens: 272_000,
      });
    }
    expect(OPENAI_CAPABILITY_TABLE['gpt-4.1']).toMatchObject({
      contextWindowTokens: 1_047_576,
      maxOutputTokens: 32_768,
      maxInputTokens: 1_014_808,
    });
    expect(OPENAI_CAPABILITY_TABLE['gpt-5.4']).toMatchObject({
      contextWindowTokens: 1_050_000,
      maxOutputTokens: 128_000,
      maxInputTokens: 922_000,
    });
    expect(OPENAI_CAPABILITY_TABLE['gpt-5-chat-latest']).toMatchObject({
      contextWindowTokens: 128_000,
      maxOutputTokens: 16_384,
    });
  });

  it('agrees with the model data published in gpt-tokenizer for every id both know', () => {
    const specs = publishedModels as unknown as Record<string, PublishedSpec | undefined>;
    const compared: string[] = [];
    for (const [id, entry] of Object.entries(OPENAI_CAPABILITY_TABLE)) {
      const spec = specs[id];
      if (spec?.context_window === undefined) continue;
      compared.push(id);
      expect({ id, window: entry.contextWindowTokens, output: entry.maxOutputTokens }).toEqual({
        id,
        window: spec.context_window,
        output: spec.max_output_tokens,
      });
    }
    expect(compared.length).toBeGreaterThanOrEqual(25);
  });

  it('resolves dated snapshots to their model and nothing else', () => {
    expect(OPENAI_CAPABILITIES.lookup('gpt-5-2025-08-07')).toBe(OPENAI_CAPABILITY_TABLE['gpt-5']);
    expect(OPENAI_CAPABILITIES.lookup('gpt-5.1-2025-11-13')).toBe(OPENAI_CAPABILITY_TABLE['gpt-5.1']);
    expect(OPENAI_CAPABILITIES.lookup('gpt-5-turbo')).toBeUndefined();
    expect(OPENAI_CAPABILITIES.lookup('gpt-5.9')).toBeUndefined();
  });
});

describe('OpenAI prices', () => {
  it('prices every model of the table, dated and sourced, with cached input at a tenth of input on GPT-5 models', () => {
    for (const [id, entry] of Object.entries(OPENAI_CAPABILITY_TABLE)) {
      expect(entry.prices, id).toMatchObject({
        currency: 'USD',
        source: 'table',
        asOf: '2026-12-01',
        reference: 'https://developers.openai.com/api/docs/pricing',
      });
      expect(OPENAI_PRICE_TABLE[id], id).toBe(entry.prices);
    }
    expect(Object.keys(OPENAI_PRICE_TABLE).sort()).toEqual(Object.keys(OPENAI_CAPABILITY_TABLE).sort());
    for (const id of ['gpt-5', 'gpt-5.1', 'gpt-5.2', 'gpt-5.4', 'gpt-5.4-mini', 'gpt-5.5']) {
      const prices = OPENAI_PRICE_TABLE[id];
      expect(prices?.cachedInputPerMillion, id).toBeCloseTo((prices?.inputPerMillion ?? 0) / 10, 12);
    }
    expect(OPENAI_PRICE_TABLE['gpt-5.1']).toMatchObject({
      inputPerMillion: 1.25,
      cachedInputPerMillion: 0.125,
      outputPerMillion: 10,
    });
    expect(OPENAI_PRICE_TABLE['gpt-5.4']?.longContext).toMatchObject({
      aboveInputTokens: 272_000,
      inputPerMillion: 5,
      outputPerMillion: 22.5,
    });
    expect(OPENAI_PRICE_TABLE['gpt-5-pro']?.cachedInputPerMillion).toBeUndefined();
  });

  it('gives configured prices precedence over the table, and an unknown id none at all', () => {
    const configured = {
      currency: 'USD',
      inputPerMillion: 1,
      outputPerMillion: 2,
      source: 'config',
      reference: '/home/me/.forge/config.json',
    } as const;
    expect(OPENAI_CAPABILITIES.capabilities('gpt-5.1', { prices: configured }).prices).toBe(configured);
    expect(OPENAI_CAPABILITIES.capabilities('gpt-7-preview').prices).toBeUndefined();
    expect(OPENAI_CAPABILITIES.capabilities('gpt-5.1-2025-11-13').prices).toBe(OPENAI_PRICE_TABLE['gpt-5.1']);
    expect(() =>
      OPENAI_CAPABILITIES.capabilities('gpt-5.1', { prices: { ...configured, inputPerMillion: -1 } }),
    ).toThrow(/configured prices of gpt-5.1: inputPerMillion/);
  });
});

describe('openAICapabilities', () => {
  it('reports table entries with the o200k tokenizer, native compaction, prices and OpenAI cache rules', () => {
    expect(OPENAI_CAPABILITIES.capabilities('gpt-5.1')).toEqual({
      contextWindowTokens: 400_000,
      maxOutputTokens: 128_000,
      maxInputTokens: 272_000,
      nativeCompaction: 'opaque-provider-item',
      continuationProjection: 'adapter-owned',
      estimation: 'provider-tokenizer',
      source: 'table',
      prices: OPENAI_PRICE_TABLE['gpt-5.1'],
      promptCache: { minimumTokens: 1024, incrementTokens: 128, lifetimeMs: 300_000 },
    });
  });

  it('gives an unknown id the conservative fallback, never the window of a similar id', () => {
    expect(OPENAI_CAPABILITIES.capabilities('gpt-7-preview')).toMatchObject({
      contextWindowTokens: 32_768,
      source: 'fallback',
    });
    expect(OPENAI_CAPABILITIES.capabilities('gpt-7-preview', { fallbackContextWindowTokens: 16_000 })).toMatchObject({
      contextWindowTokens: 16_000,
      source: 'fallback',
    });
  });

  it('lets configuration set the window, with source config', () => {
    expect(
      OPENAI_CAPABILITIES.capabilities('gpt-7-preview', {
        configured: { contextWindowTokens: 200_000, maxOutputTokens: 50_000 },
      }),
    ).toMatchObject({
      contextWindowTokens: 200_000,
      maxOutputTokens: 50_000,
      source: 'config',
    });
  });
});
