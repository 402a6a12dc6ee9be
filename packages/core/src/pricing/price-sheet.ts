import { InvalidInputError } from '../errors.js';

/** Where a model's prices came from: the adapter's dated table, or the user's configuration. */
export type PriceSource = 'table' | 'config';

/** Token prices in US dollars per million tokens. */
export interface TokenPrices {
  /** Input tokens the provider processed afresh (neither read from nor written to its prompt cache). */
  readonly inputPerMillion: number;
  /** Input tokens read from the prompt cache. Absent: the provider publishes no discount, so they cost `inputPerMillion`. */
  readonly cachedInputPerMillion?: number;
  /** Input tokens written to the prompt cache. Absent: a write costs what fresh input costs (no surcharge). */
  readonly cacheWritePerMillion?: number;
  /** Output tokens, reasoning included. */
  readonly outputPerMillion: number;
}

/** Rates that replace the standard ones for a whole request once its input passes `aboveInputTokens` (OpenAI's long-context pricing). */
export interface LongContextPrices extends TokenPrices {
  readonly aboveInputTokens: number;
}

/**
 * What one model costs, and where the figures came from. A model without a sheet is reported in
 * tokens only: Forge never prices it from a similar-looking model.
 */
export interface PriceSheet extends TokenPrices {
  readonly currency: 'USD';
  readonly longContext?: LongContextPrices;
  readonly source: PriceSource;
  /** The day (`YYYY-MM-DD`) the prices were read from `reference`. */
  readonly asOf?: string;
  /** Where they were read: the provider's pricing page for the table, the configuration file for `config`. */
  readonly reference?: string;
  /** Anything a reader of the figures must know (peak-hour rates, a negotiated discount). */
  readonly note?: string;
}

const RATE_FIELDS = ['inputPerMillion', 'cachedInputPerMillion', 'cacheWritePerMillion', 'outputPerMillion'] as const;

function checkRates(rates: TokenPrices, where: string): void {
  for (const field of RATE_FIELDS) {
    const value = rates[field];
    if (value === undefined && (field === 'cachedInputPerMillion' || field === 'cacheWritePerMillion')) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new InvalidInputError({
        message: `${where}: ${field} must be a number of dollars ≥ 0, got ${String(value)}.`,
      });
    }
  }
}

/** Throws an `InvalidInputError` naming the field when a sheet has a negative, missing or non-finite rate. */
export function checkPriceSheet(sheet: PriceSheet, where: string): PriceSheet {
  checkRates(sheet, where);
  if (sheet.longContext !== undefined) {
    checkRates(sheet.longContext, `${where} (long context)`);
    const threshold = sheet.longContext.aboveInputTokens;
    if (!Number.isSafeInteger(threshold) || threshold < 1) {
      throw new InvalidInputError({
        message: `${where}: longContext.aboveInputTokens must be a whole number of tokens ≥ 1, got ${String(threshold)}.`,
      });
    }
  }
  return sheet;
}
