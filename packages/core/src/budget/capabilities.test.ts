import { describe, expect, it } from 'vitest';
import { resolveModelCapabilities, withoutDateSuffix, type CapabilityTableEntry } from './capabilities.js';

const table: Record<string, CapabilityTableEntry> = {
  'known-1': { contextWindowTokens: 400_000, maxOutputTokens: 128_000, maxInputTokens: 272_000 },
};
const lookup = (id: string) => table[withoutDateSuffix(id)];

describe('resolveModelCapabilities', () => {
  it('takes known models from the table, dated snapshots included', () => {
    expect(
      resolveModelCapabilities({ modelId: 'known-1-2025-08-07', lookup, estimation: 'provider-tokenizer' }),
    ).toMatchObject({
      contextWindowTokens: 400_000,
      maxOutputTokens: 128_000,
      maxInputTokens: 272_000,
      source: 'table',
      estimation: 'provider-tokenizer',
    });
  });

  it('gives an unknown model the conservative fallback window, never a guess from a similar id', () => {
    const unknown = resolveModelCapabilities({ modelId: 'known-2', lookup, estimation: 'conservative-fallback' });
    expect(unknown).toMatchObject({ contextWindowTokens: 32_768, source: 'fallback' });
    expect(unknown.maxOutputTokens).toBeUndefined();
    expect(
      resolveModelCapabilities({
        modelId: 'known-2',
        lookup,
        estimation: 'conservative-fallback',
        fallbackContextWindowTokens: 8000,
      }).contextWindowTokens,
    ).toBe(8000);
  });

  it('lets configuration override the table and records that it did', () => {
    const configured = resolveModelCapabilities({
      modelId: 'known-1',
      lookup,
      estimation: 'provider-tokenizer',
      configured: { contextWindowTokens: 100_000 },
    });
    expect(configured).toMatchObject({ contextWindowTokens: 100_000, maxOutputTokens: 128_000, source: 'config' });
    expect(configured.maxInputTokens).toBeUndefined();
    expect(() =>
      resolveModelCapabilities({ modelId: 'x', lookup, estimation: 'sdk', configured: { contextWindowTokens: 0 } }),
    ).toThrow(/configured context window of x must be a whole number/);
  });
});
