import { capabilityTable, type CapabilityTable, type VendorCapabilityTable } from '@forge/ai-sdk-bridge';
import type { CapabilityTableEntry } from '@forge/core';
import { DEEPSEEK_PRICE_TABLE, DEEPSEEK_PROMPT_CACHE } from './prices.js';

/*
 * DeepSeek's published limits (api-docs.deepseek.com, "Models & Pricing"): the V4 models have a
 * context length of "1M" and produce at most 384K tokens. "1M" is recorded as 1,000,000, the
 * smaller reading, because a window taken too large is the failure a budget exists to prevent.
 * DeepSeek publishes no separate input cap, so input and output share the window.
 *
 * `deepseek-chat` and `deepseek-reasoner` are DeepSeek's legacy names: its documentation maps them
 * to V4-Flash without and with thinking, and has announced their retirement. They keep the V4
 * limits here; a gateway that still serves an older model under these names should set the
 * window in configuration.
 *
 * `deepseek-flash` is the name DeepSeek now gives its Flash model (V4.1); it has the same limits.
 *
 * Requests are counted with the tokenizer DeepSeek publishes for offline counting (DeepSeek-V3's,
 * see deepseek-tokenizer.ts and docs/adapters.md for the ids it is exact for); estimate-versus-usage
 * records check it against real usage.
 */

/** Where the table's figures come from, for `forge models list`. */
export const DEEPSEEK_CAPABILITY_SOURCE = 'DeepSeek API documentation, Models & Pricing (api-docs.deepseek.com)';

/** The tokenizer DeepSeek requests are counted with (see deepseek-tokenizer.ts). */
export const DEEPSEEK_V3_TOKENIZER = 'deepseek-v3';

const v4: CapabilityTableEntry = { contextWindowTokens: 1_000_000, maxOutputTokens: 384_000 };

const limits: Readonly<Record<string, CapabilityTableEntry>> = {
  'deepseek-flash': v4,
  'deepseek-v4-pro': v4,
  'deepseek-v4-flash': v4,
  'deepseek-chat': v4,
  'deepseek-reasoner': v4,
};

/** The DeepSeek capability table (model id → window, maximum output and prices), its lookup and the capabilities it resolves; requests are counted with DeepSeek-V3's tokenizer. */
export const DEEPSEEK_CAPABILITIES: VendorCapabilityTable = capabilityTable({
  rows: limits,
  prices: DEEPSEEK_PRICE_TABLE,
  promptCache: DEEPSEEK_PROMPT_CACHE,
  estimation: 'provider-tokenizer',
  nativeCompaction: 'unsupported',
});

export const DEEPSEEK_CAPABILITY_TABLE: CapabilityTable = DEEPSEEK_CAPABILITIES.table;
