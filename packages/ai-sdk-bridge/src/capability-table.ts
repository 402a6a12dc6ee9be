import {
  resolveModelCapabilities,
  withoutDateSuffix,
  type CapabilityTableEntry,
  type ConfiguredLimits,
  type ContextCapabilities,
  type ModelCapabilities,
  type PriceSheet,
  type PromptCacheRules,
  type TokenEstimateMethod,
} from '@forge/core';

export type CapabilityTable = Readonly<Record<string, CapabilityTableEntry>>;

/** A vendor's published rows, each with its prices (when the price table has the id), frozen. */
export function capabilityTable(
  rows: Readonly<Record<string, CapabilityTableEntry>>,
  prices: Readonly<Record<string, PriceSheet>>,
  derive: (entry: CapabilityTableEntry) => CapabilityTableEntry = (entry) => entry,
): CapabilityTable {
  return Object.freeze(
    Object.fromEntries(
      Object.entries(rows).map(([id, entry]) => {
        const sheet = prices[id];
        return [id, Object.freeze({ ...derive(entry), ...(sheet === undefined ? {} : { prices: sheet }) })];
      }),
    ),
  );
}

/** The row of `modelId` or of the model a dated snapshot (`gpt-5-2025-08-07`) belongs to. */
export function lookupInTable(table: CapabilityTable, modelId: string): CapabilityTableEntry | undefined {
  return table[modelId] ?? table[withoutDateSuffix(modelId)];
}

/** What configuration may say about one model of a table vendor. */
export interface TableCapabilityOptions {
  /** Limits set in configuration; they override the table and make the source `config`. */
  readonly configured?: ConfiguredLimits;
  /** Prices from configuration; they replace the table's (source `config`). */
  readonly prices?: PriceSheet;
  /** Window for ids the table does not know (default 32,768). */
  readonly fallbackContextWindowTokens?: number;
}

/** What is the same for every model of one table vendor. */
export interface TableVendor {
  readonly lookup: (modelId: string) => CapabilityTableEntry | undefined;
  readonly promptCache: PromptCacheRules;
  readonly estimation: TokenEstimateMethod;
  readonly nativeCompaction: ModelCapabilities['nativeCompaction'];
}

/** Capabilities of one model of a table vendor, with their provenance (`table`, `config` or `fallback`). */
export function tableCapabilities(vendor: TableVendor, modelId: string, options: TableCapabilityOptions = {}): ContextCapabilities {
  return resolveModelCapabilities({
    modelId,
    lookup: vendor.lookup,
    ...(options.configured === undefined ? {} : { configured: options.configured }),
    ...(options.prices === undefined ? {} : { configuredPrices: options.prices }),
    promptCache: vendor.promptCache,
    ...(options.fallbackContextWindowTokens === undefined ? {} : { fallbackContextWindowTokens: options.fallbackContextWindowTokens }),
    estimation: vendor.estimation,
    nativeCompaction: vendor.nativeCompaction,
    continuationProjection: 'adapter-owned',
  });
}

/** Options of a `create…Model` factory of a table vendor, beyond the adapter's own. */
export interface TableModelOptions {
  readonly capabilities?: Partial<ModelCapabilities>;
  /** Window for ids the capability table does not know (default 32,768; from `context.fallbackContextWindowTokens`). */
  readonly fallbackContextWindowTokens?: number;
  /** Prices from configuration; they replace the capability table's sheet. */
  readonly prices?: PriceSheet;
}

/**
 * Splits a factory's options into the adapter's and what the capability table is asked with: only
 * a configured window and maximum output override the table (reported with source `config`).
 */
export function splitTableOptions<Options extends TableModelOptions>(
  options: Options,
): { readonly adapter: Omit<Options, keyof TableModelOptions>; readonly table: TableCapabilityOptions } {
  const { capabilities: configured, fallbackContextWindowTokens, prices, ...adapter } = options;
  return {
    adapter,
    table: {
      configured: {
        ...(configured?.contextWindowTokens === undefined ? {} : { contextWindowTokens: configured.contextWindowTokens }),
        ...(configured?.maxOutputTokens === undefined ? {} : { maxOutputTokens: configured.maxOutputTokens }),
      },
      ...(prices === undefined ? {} : { prices }),
      ...(fallbackContextWindowTokens === undefined ? {} : { fallbackContextWindowTokens }),
    },
  };
}
