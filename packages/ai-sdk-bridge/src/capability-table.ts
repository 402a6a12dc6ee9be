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

/** What configuration may say about one model of a table vendor. */
export interface TableCapabilityOptions {
  /** Limits set in configuration; they override the table and make the source `config`. */
  readonly configured?: ConfiguredLimits;
  /** Prices from configuration; they replace the table's (source `config`). */
  readonly prices?: PriceSheet;
  /** Window for ids the table does not know (default 32,768). */
  readonly fallbackContextWindowTokens?: number;
}

/** A vendor's published limits and what is the same for every model it lists. */
export interface CapabilityTableSource {
  readonly rows: Readonly<Record<string, CapabilityTableEntry>>;
  /** Prices by model id; a row gets its sheet when the id has one. */
  readonly prices: Readonly<Record<string, PriceSheet>>;
  /** Completes a published row (OpenAI records its input cap as window − maximum output). */
  readonly derive?: (entry: CapabilityTableEntry) => CapabilityTableEntry;
  readonly promptCache: PromptCacheRules;
  readonly estimation: TokenEstimateMethod;
  readonly nativeCompaction: ModelCapabilities['nativeCompaction'];
}

export interface VendorCapabilityTable {
  /** Model id → window, maximum output, input cap and prices, frozen. */
  readonly table: CapabilityTable;
  /** The row of `modelId` or of the model a dated snapshot (`gpt-5-2025-08-07`) belongs to. */
  lookup(modelId: string): CapabilityTableEntry | undefined;
  /** Capabilities of one model with their provenance (`table`, `config` or `fallback`). */
  capabilities(modelId: string, options?: TableCapabilityOptions): ContextCapabilities;
}

/** A vendor's capability table with its lookup and the capabilities it resolves for a model id. */
export function capabilityTable(source: CapabilityTableSource): VendorCapabilityTable {
  const derive = source.derive ?? ((entry: CapabilityTableEntry) => entry);
  const table: CapabilityTable = Object.freeze(
    Object.fromEntries(
      Object.entries(source.rows).map(([id, entry]) => {
        const sheet = source.prices[id];
        return [id, Object.freeze({ ...derive(entry), ...(sheet === undefined ? {} : { prices: sheet }) })];
      }),
    ),
  );
  const lookup = (modelId: string): CapabilityTableEntry | undefined =>
    table[modelId] ?? table[withoutDateSuffix(modelId)];
  const capabilities = (modelId: string, options: TableCapabilityOptions = {}): ContextCapabilities =>
    resolveModelCapabilities({
      modelId,
      lookup,
      ...(options.configured === undefined ? {} : { configured: options.configured }),
      ...(options.prices === undefined ? {} : { configuredPrices: options.prices }),
      promptCache: source.promptCache,
      ...(options.fallbackContextWindowTokens === undefined
        ? {}
        : { fallbackContextWindowTokens: options.fallbackContextWindowTokens }),
      estimation: source.estimation,
      nativeCompaction: source.nativeCompaction,
      continuationProjection: 'adapter-owned',
    });
  return { table, lookup, capabilities };
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
        ...(configured?.contextWindowTokens === undefined
          ? {}
          : { contextWindowTokens: configured.contextWindowTokens }),
        ...(configured?.maxOutputTokens === undefined ? {} : { maxOutputTokens: configured.maxOutputTokens }),
      },
      ...(prices === undefined ? {} : { prices }),
      ...(fallbackContextWindowTokens === undefined ? {} : { fallbackContextWindowTokens }),
    },
  };
}
