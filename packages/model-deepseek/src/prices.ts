import type { PriceSheet, PromptCacheRules } from '@forge/core';

/*
 * DeepSeek's prices in US dollars per million tokens, read on 2026-12-01 from the stored copy of
 * DeepSeek's "Models & Pricing" page (api-docs.deepseek.com/quick_start/pricing, as published in
 * mid-November 2026), not from the live page: check them there before relying on them. DeepSeek
 * bills a cache hit at the hit rate and every other input token at the miss rate; there is no
 * separate write charge. Since August 2026 DeepSeek bills by time of day: the rates here are the
 * peak ones, so a cost Forge shows is an upper bound — off-peak hours bill at half.
 *
 * `deepseek-flash` is DeepSeek-V4.1-Flash; the page says requests to the retired name
 * `deepseek-v4-flash` are served by it at its prices. The legacy names `deepseek-chat` and
 * `deepseek-reasoner` are DeepSeek's aliases of the Flash model (see capabilities.ts).
 */

const AS_OF = '2026-12-01';
const REFERENCE = 'https://api-docs.deepseek.com/quick_start/pricing';
const NOTE = 'peak-hour rates; DeepSeek bills off-peak hours at half';

function sheet(hit: number, miss: number, output: number): PriceSheet {
  return Object.freeze({
    currency: 'USD',
    inputPerMillion: miss,
    cachedInputPerMillion: hit,
    outputPerMillion: output,
    source: 'table',
    asOf: AS_OF,
    reference: REFERENCE,
    note: NOTE,
  });
}

const flash = sheet(0.006, 0.3, 1.2);

export const DEEPSEEK_PRICE_TABLE: Readonly<Record<string, PriceSheet>> = Object.freeze({
  'deepseek-flash': flash,
  'deepseek-v4-flash': flash,
  'deepseek-v4-pro': sheet(0.044, 1.32, 3.96),
  'deepseek-chat': flash,
  'deepseek-reasoner': flash,
});

/**
 * DeepSeek's disk cache, approximately: prefixes are stored in 64-token units (shorter ones are
 * not cached) and an unused prefix is dropped after "a few hours to a few days" (one hour taken).
 * DeepSeek documents hits only on whole stored units, so a simulation with these rules is an
 * estimate, unlike OpenAI's documented rules.
 */
export const DEEPSEEK_PROMPT_CACHE: PromptCacheRules = Object.freeze({
  minimumTokens: 64,
  incrementTokens: 64,
  lifetimeMs: 60 * 60_000,
});
