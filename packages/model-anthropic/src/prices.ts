import type { PriceSheet } from '@forge/core';
import type { AnthropicCacheLifetime } from './settings.js';

/*
 * Anthropic's standard-tier prices in US dollars per million tokens, read on 2026-12-04 from the
 * stored copy of Anthropic's pricing page (platform.claude.com/docs/en/about-claude/pricing, "Model
 * pricing"), not from the live page: check them there before relying on them. Anthropic bills
 * four kinds of input: fresh input, cache writes at 1.25× input for a 5-minute lifetime or 2× for
 * an hour, and cache reads ("hits and refreshes") at 0.1×. Output includes thinking.
 *
 * The table models have no long-context surcharge at the windows recorded in capabilities.ts
 * (Sonnet 4.5's 1M-token beta, which has one, is not recorded).
 */

const AS_OF = '2026-12-04';
const REFERENCE = 'https://platform.claude.com/docs/en/about-claude/pricing';

/** One model's published rates: a write rate per cache lifetime. */
export interface AnthropicRates {
  readonly input: number;
  readonly cacheWrite: Readonly<Record<AnthropicCacheLifetime, number>>;
  readonly cacheRead: number;
  readonly output: number;
}

/** A multiple of a rate, without floating-point dust (0.30000000000000004). */
const times = (rate: number, factor: number): number => Math.round(rate * factor * 1_000_000) / 1_000_000;

function rates(input: number, output: number): AnthropicRates {
  return {
    input,
    cacheWrite: { '5m': times(input, 1.25), '1h': times(input, 2) },
    cacheRead: times(input, 0.1),
    output,
  };
}

const opus = rates(5, 25);
const sonnet = rates(3, 15);
const haiku = rates(1, 5);

/** Model id → published rates, for the ids of the capability table. */
export const ANTHROPIC_RATES: Readonly<Record<string, AnthropicRates>> = Object.freeze({
  'claude-opus-4-7': opus,
  'claude-opus-4-6': opus,
  'claude-opus-4-5': opus,
  'claude-opus-4-5-20251101': opus,
  'claude-sonnet-4-6': sonnet,
  'claude-sonnet-4-5': sonnet,
  'claude-sonnet-4-5-20250929': sonnet,
  'claude-haiku-4-5': haiku,
  'claude-haiku-4-5-20251001': haiku,
});

/**
 * The price sheet of `rates` for one cache lifetime: cache writes at that lifetime's rate (every
 * breakpoint Forge sets has the same lifetime, so every write of a session bills at it).
 */
export function anthropicPriceSheet(rates: AnthropicRates, lifetime: AnthropicCacheLifetime): PriceSheet {
  const other: AnthropicCacheLifetime = lifetime === '5m' ? '1h' : '5m';
  return Object.freeze({
    currency: 'USD',
    inputPerMillion: rates.input,
    cachedInputPerMillion: rates.cacheRead,
    cacheWritePerMillion: rates.cacheWrite[lifetime],
    outputPerMillion: rates.output,
    source: 'table',
    asOf: AS_OF,
    reference: REFERENCE,
    note: `cache writes at the ${lifetime} rate; ${other} writes bill $${rates.cacheWrite[other]} per 1M`,
  });
}

/** Model id → price sheet with the default 5-minute cache lifetime (what `forge models list` shows). */
export const ANTHROPIC_PRICE_TABLE: Readonly<Record<string, PriceSheet>> = Object.freeze(
  Object.fromEntries(Object.entries(ANTHROPIC_RATES).map(([id, entry]) => [id, anthropicPriceSheet(entry, '5m')])),
);

/** The price table for one cache lifetime. */
export function anthropicPriceTable(lifetime: AnthropicCacheLifetime): Readonly<Record<string, PriceSheet>> {
  if (lifetime === '5m') return ANTHROPIC_PRICE_TABLE;
  return Object.fromEntries(
    Object.entries(ANTHROPIC_RATES).map(([id, entry]) => [id, anthropicPriceSheet(entry, lifetime)]),
  );
}
