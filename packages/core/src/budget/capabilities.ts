import { InvalidInputError } from '../errors.js';
import type { ModelCapabilities, TokenEstimateMethod } from '../model/adapter.js';
import { checkPriceSheet, type PriceSheet } from '../pricing/price-sheet.js';
import type { PromptCacheRules } from '../pricing/prompt-cache.js';
import { DEFAULT_CONTEXT_POLICY } from './policy.js';

/**
 * Model capabilities as the budget reads them. `maxInputTokens` is a provider's own cap on input
 * when it is lower than what the window leaves (OpenAI's GPT-5 accepts at most 272,000 input
 * tokens of its 400,000 window); adapters that know one include it in their capabilities object.
 */
export type ContextCapabilities = ModelCapabilities & { readonly maxInputTokens?: number };

/** One row of an adapter's capability table: published limits for one model id. */
export interface CapabilityTableEntry {
  readonly contextWindowTokens: number;
  readonly maxOutputTokens?: number;
  readonly maxInputTokens?: number;
  /** Published prices, dated (source `table`). */
  readonly prices?: PriceSheet;
}

/** Limits a user configured for a model; they override the table field by field. */
export interface ConfiguredLimits {
  readonly contextWindowTokens?: number;
  readonly maxOutputTokens?: number;
}

export interface ResolveCapabilitiesOptions {
  readonly modelId: string;
  /** The adapter's table lookup (exact ids, dated snapshots, aliases); undefined when unknown. */
  readonly lookup: (modelId: string) => CapabilityTableEntry | undefined;
  readonly configured?: ConfiguredLimits;
  /** Prices set in configuration: they replace the table's sheet as a whole (source `config`). */
  readonly configuredPrices?: PriceSheet;
  /** How the provider caches prefixes; the same for every model of an adapter. */
  readonly promptCache?: PromptCacheRules;
  /** Window for a model neither the table nor configuration knows (default 32,768). */
  readonly fallbackContextWindowTokens?: number;
  readonly estimation: TokenEstimateMethod;
  readonly nativeCompaction?: ModelCapabilities['nativeCompaction'];
  readonly continuationProjection?: ModelCapabilities['continuationProjection'];
}

function checkTokens(value: number | undefined, what: string): void {
  if (value !== undefined && (!Number.isSafeInteger(value) || value < 1)) {
    throw new InvalidInputError({ message: `${what} must be a whole number of tokens ≥ 1, got ${String(value)}.` });
  }
}

/**
 * The capabilities of one model and where they came from: `config` when configuration sets the
 * window, `table` when the adapter's table knows the id, otherwise `fallback` — a conservative
 * configured window, never an optimistic guess from a similar-looking id. Prices follow the same
 * rule with their own provenance (`prices.source`): configured, else the table's, else none.
 */
export function resolveModelCapabilities(options: ResolveCapabilitiesOptions): ContextCapabilities {
  checkTokens(options.configured?.contextWindowTokens, `The configured context window of ${options.modelId}`);
  checkTokens(options.configured?.maxOutputTokens, `The configured maximum output of ${options.modelId}`);
  const fallbackWindow = options.fallbackContextWindowTokens ?? DEFAULT_CONTEXT_POLICY.fallbackContextWindowTokens;
  checkTokens(fallbackWindow, 'The fallback context window');

  const entry = options.lookup(options.modelId);
  const configuredWindow = options.configured?.contextWindowTokens;
  const source = configuredWindow !== undefined ? 'config' : entry !== undefined ? 'table' : 'fallback';
  const contextWindowTokens = configuredWindow ?? entry?.contextWindowTokens ?? fallbackWindow;
  const maxOutputTokens = options.configured?.maxOutputTokens ?? entry?.maxOutputTokens;
  // A table's input cap belongs to the table's window; a configured window replaces both.
  const maxInputTokens = configuredWindow === undefined ? entry?.maxInputTokens : undefined;
  // A configured sheet replaces the table's whole: mixing one field of the user's rate with the rest of a published one would price neither.
  const prices =
    options.configuredPrices === undefined
      ? entry?.prices
      : checkPriceSheet(options.configuredPrices, `The configured prices of ${options.modelId}`);
  return {
    contextWindowTokens,
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    ...(maxInputTokens === undefined ? {} : { maxInputTokens }),
    nativeCompaction: options.nativeCompaction ?? 'unsupported',
    continuationProjection: options.continuationProjection ?? 'adapter-owned',
    estimation: options.estimation,
    source,
    ...(prices === undefined ? {} : { prices }),
    ...(options.promptCache === undefined ? {} : { promptCache: options.promptCache }),
  };
}

/** `gpt-5-2025-08-07` → `gpt-5`: dated snapshots share the limits of their model. */
export function withoutDateSuffix(modelId: string): string {
  return modelId.replace(/-\d{4}-\d{2}-\d{2}$/, '');
}
