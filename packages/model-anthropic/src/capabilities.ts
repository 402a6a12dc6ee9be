import { capabilityTable, type CapabilityTable, type VendorCapabilityTable } from '@forge/ai-sdk-bridge';
import type { CapabilityTableEntry, ContextCapabilities, PromptCacheRules } from '@forge/core';
import type { TableCapabilityOptions } from '@forge/ai-sdk-bridge';
import { ANTHROPIC_PRICE_TABLE, anthropicPriceTable } from './prices.js';
import { DEFAULT_ANTHROPIC_CACHE_LIFETIME, type AnthropicCacheLifetime } from './settings.js';

/*
 * Published limits of current Claude models, read on 2026-12-04 from stored copies of Anthropic's
 * models overview (platform.claude.com/docs/en/about-claude/models/overview) and prompt-caching
 * page (platform.claude.com/docs/en/build-with-claude/prompt-caching), not the live pages. The
 * window is input and output together; Anthropic publishes no separate input cap.
 *
 * The minimum cacheable prompt is Anthropic's per model: a prefix shorter than it is processed
 * but never cached, so a breakpoint before it writes and reads nothing.
 *
 * Anthropic's dated ids (`claude-haiku-4-5-20251001`) are listed as rows: their date has no dashes,
 * so the table's snapshot rule (`-YYYY-MM-DD`) does not apply. Ids not listed (newer models among
 * them) get the conservative fallback window and no prices until configuration sets them.
 */

/** Where the table's figures come from, for `forge models list`. */
export const ANTHROPIC_CAPABILITY_SOURCE =
  "Anthropic's models overview and prompt-caching pages (platform.claude.com/docs), read 2026-12-04";

/** No public tokenizer exists for current Claude models: requests are counted with core's conservative estimate. */
export const ANTHROPIC_COUNTER = 'conservative';

interface ClaudeRow extends CapabilityTableEntry {
  readonly minimumCacheableTokens: number;
}

const row = (contextWindowTokens: number, maxOutputTokens: number, minimumCacheableTokens: number): ClaudeRow => ({
  contextWindowTokens,
  maxOutputTokens,
  minimumCacheableTokens,
});

const opus47 = row(1_000_000, 128_000, 4096);
const opus46 = row(1_000_000, 128_000, 4096);
const opus45 = row(200_000, 64_000, 4096);
const sonnet46 = row(1_000_000, 64_000, 2048);
const sonnet45 = row(200_000, 64_000, 1024);
const haiku45 = row(200_000, 64_000, 4096);

const published: Readonly<Record<string, ClaudeRow>> = {
  'claude-opus-4-7': opus47,
  'claude-opus-4-6': opus46,
  'claude-opus-4-5': opus45,
  'claude-opus-4-5-20251101': opus45,
  'claude-sonnet-4-6': sonnet46,
  'claude-sonnet-4-5': sonnet45,
  'claude-sonnet-4-5-20250929': sonnet45,
  'claude-haiku-4-5': haiku45,
  'claude-haiku-4-5-20251001': haiku45,
};

/** The minimum for ids the table does not know: the largest any listed model has, so Forge never expects a hit Anthropic would not give. */
const FALLBACK_MINIMUM_CACHEABLE_TOKENS = 4096;

const LIFETIME_MS: Readonly<Record<AnthropicCacheLifetime, number>> = { '5m': 5 * 60_000, '1h': 60 * 60_000 };

/** The shortest prefix Anthropic caches for `modelId`. */
export function minimumCacheableTokens(modelId: string): number {
  return published[modelId]?.minimumCacheableTokens ?? FALLBACK_MINIMUM_CACHEABLE_TOKENS;
}

/**
 * Anthropic's prompt cache as the priced gate and the evals see it: a hit is any prefix up to a
 * breakpoint of an earlier request (token-exact: no increments), at least the model's minimum, and
 * it lives for the breakpoints' lifetime after its last use.
 */
export function anthropicPromptCache(
  modelId: string,
  lifetime: AnthropicCacheLifetime = DEFAULT_ANTHROPIC_CACHE_LIFETIME,
): PromptCacheRules {
  return Object.freeze({
    minimumTokens: minimumCacheableTokens(modelId),
    incrementTokens: 1,
    lifetimeMs: LIFETIME_MS[lifetime],
  });
}

const limits: Readonly<Record<string, CapabilityTableEntry>> = Object.fromEntries(
  Object.entries(published).map(([id, { contextWindowTokens, maxOutputTokens }]) => [
    id,
    { contextWindowTokens, ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }) },
  ]),
);

function tableFor(lifetime: AnthropicCacheLifetime): VendorCapabilityTable {
  return capabilityTable({
    rows: limits,
    prices: anthropicPriceTable(lifetime),
    promptCache: anthropicPromptCache('', lifetime),
    estimation: 'conservative-fallback',
    nativeCompaction: 'unsupported',
  });
}

/** The Claude capability table (model id → window, maximum output and prices at the 5-minute write rate). */
export const ANTHROPIC_CAPABILITIES: VendorCapabilityTable = tableFor(DEFAULT_ANTHROPIC_CACHE_LIFETIME);

export const ANTHROPIC_CAPABILITY_TABLE: CapabilityTable = ANTHROPIC_CAPABILITIES.table;

/** Capabilities of one model for one cache lifetime: its write rate and its minimum cacheable prefix. */
export function anthropicCapabilities(
  modelId: string,
  lifetime: AnthropicCacheLifetime,
  options: TableCapabilityOptions = {},
): ContextCapabilities {
  const table = lifetime === DEFAULT_ANTHROPIC_CACHE_LIFETIME ? ANTHROPIC_CAPABILITIES : tableFor(lifetime);
  return { ...table.capabilities(modelId, options), promptCache: anthropicPromptCache(modelId, lifetime) };
}

export { ANTHROPIC_PRICE_TABLE };
