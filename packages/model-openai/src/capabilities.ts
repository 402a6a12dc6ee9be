import { capabilityTable, type CapabilityTable, type VendorCapabilityTable } from '@forge/ai-sdk-bridge';
import type { CapabilityTableEntry } from '@forge/core';
import { OPENAI_PROMPT_CACHE } from '@forge/core/pricing';
import { OPENAI_PRICE_TABLE } from './prices.js';

/*
 * Published limits of OpenAI models, from OpenAI's model pages (cross-checked in the tests against
 * the model data that ships with gpt-tokenizer). Every model here uses the o200k tokenizer.
 *
 * OpenAI splits a GPT-5-class window into input and output: gpt-5 has 400,000 tokens of which at
 * most 128,000 are output, so input stops at 272,000. The table records that input cap as
 * window − maximum output for every entry; the budget subtracts the safety buffer from it.
 * Dated snapshots (`gpt-5-2025-08-07`) resolve to their model. Ids not listed get the
 * conservative fallback window, never the limits of a similar-looking id.
 */

/** Where the table's figures come from, for `forge models list`. */
export const OPENAI_CAPABILITY_SOURCE =
  "OpenAI's model pages (platform.openai.com/docs/models), cross-checked with gpt-tokenizer's model data";

/** The tokenizer every model in the table uses. */
export const OPENAI_TOKENIZER = 'o200k_base';

const gpt5Class: CapabilityTableEntry = { contextWindowTokens: 400_000, maxOutputTokens: 128_000 };
const chatLatest: CapabilityTableEntry = { contextWindowTokens: 128_000, maxOutputTokens: 16_384 };
const millionClass: CapabilityTableEntry = { contextWindowTokens: 1_050_000, maxOutputTokens: 128_000 };
const gpt41Class: CapabilityTableEntry = { contextWindowTokens: 1_047_576, maxOutputTokens: 32_768 };
const oSeries: CapabilityTableEntry = { contextWindowTokens: 200_000, maxOutputTokens: 100_000 };
const gpt4o: CapabilityTableEntry = { contextWindowTokens: 128_000, maxOutputTokens: 16_384 };

const published: Readonly<Record<string, CapabilityTableEntry>> = {
  'gpt-5': gpt5Class,
  'gpt-5-mini': gpt5Class,
  'gpt-5-nano': gpt5Class,
  'gpt-5-codex': gpt5Class,
  'gpt-5-chat-latest': chatLatest,
  // Pro reasoning models may spend most of the window on output: 272,000 output, 128,000 input.
  'gpt-5-pro': { contextWindowTokens: 400_000, maxOutputTokens: 272_000 },
  'gpt-5.1': gpt5Class,
  'gpt-5.1-codex': gpt5Class,
  'gpt-5.1-codex-mini': gpt5Class,
  'gpt-5.1-codex-max': gpt5Class,
  'gpt-5.1-chat-latest': chatLatest,
  'gpt-5.2': gpt5Class,
  'gpt-5.2-codex': gpt5Class,
  'gpt-5.2-pro': gpt5Class,
  'gpt-5.2-chat-latest': chatLatest,
  'gpt-5.3-codex': gpt5Class,
  'gpt-5.3-chat-latest': chatLatest,
  'gpt-5.4': millionClass,
  'gpt-5.4-pro': millionClass,
  'gpt-5.4-mini': gpt5Class,
  'gpt-5.4-nano': gpt5Class,
  'gpt-5.5': millionClass,
  'gpt-5.5-pro': millionClass,
  'gpt-4.1': gpt41Class,
  'gpt-4.1-mini': gpt41Class,
  'gpt-4.1-nano': gpt41Class,
  'gpt-4o': gpt4o,
  'gpt-4o-mini': gpt4o,
  o3: oSeries,
  'o3-mini': oSeries,
  'o3-pro': oSeries,
  'o4-mini': oSeries,
  'codex-mini-latest': oSeries,
};

/** The OpenAI capability table (model id → window, maximum output, input cap and prices), its lookup (dated snapshots resolve to their model) and the capabilities it resolves, with their provenance. */
export const OPENAI_CAPABILITIES: VendorCapabilityTable = capabilityTable({
  rows: published,
  prices: OPENAI_PRICE_TABLE,
  derive: (entry) => ({ ...entry, maxInputTokens: entry.contextWindowTokens - (entry.maxOutputTokens ?? 0) }),
  promptCache: OPENAI_PROMPT_CACHE,
  estimation: 'provider-tokenizer',
  nativeCompaction: 'opaque-provider-item',
});

export const OPENAI_CAPABILITY_TABLE: CapabilityTable = OPENAI_CAPABILITIES.table;
