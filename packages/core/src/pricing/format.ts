import type { PriceSheet } from './price-sheet.js';

/** `$12.34`, `$0.0213`, `$0.000412`, `$0`; amounts below a millionth of a dollar show as `<$0.000001`. */
export function formatDollars(amount: number): string {
  if (amount === 0) return '$0';
  if (amount < 0) return `-${formatDollars(-amount)}`;
  if (amount < 0.000_001) return '<$0.000001';
  if (amount >= 1) return `$${amount.toFixed(2)}`;
  return `$${Number(amount.toPrecision(3)).toString()}`;
}

/** A rate per million tokens without trailing zeros: `$1.25`, `$0.125`, `$10`. */
export function formatRate(perMillion: number): string {
  return `$${Number(perMillion.toFixed(6)).toString()}`;
}

/** Rates as the descriptions read them: a sheet, or prices parsed from a file, whose optional rates zod types as possibly undefined. */
interface DescribedRates {
  readonly inputPerMillion: number;
  readonly cachedInputPerMillion?: number | undefined;
  readonly cacheWritePerMillion?: number | undefined;
  readonly outputPerMillion: number;
}

function rates(prices: DescribedRates): string {
  const parts = [`${formatRate(prices.inputPerMillion)} input`];
  if (prices.cachedInputPerMillion !== undefined) parts.push(`${formatRate(prices.cachedInputPerMillion)} cached`);
  if (prices.cacheWritePerMillion !== undefined) parts.push(`${formatRate(prices.cacheWritePerMillion)} cache write`);
  parts.push(`${formatRate(prices.outputPerMillion)} output`);
  return parts.join(' · ');
}

/** `$1.25 input · $0.125 cached · $10 output per 1M tokens`, with the long-context rates when the sheet has them. */
export function describePrices(
  sheet: DescribedRates & {
    readonly longContext?: (DescribedRates & { readonly aboveInputTokens: number }) | undefined;
  },
): string {
  const long =
    sheet.longContext === undefined
      ? ''
      : `; above ${sheet.longContext.aboveInputTokens.toLocaleString('en-US')} input tokens ${rates(sheet.longContext)}`;
  return `${rates(sheet)} per 1M tokens${long}`;
}

/** Where a sheet's figures came from: `capability table, as of 2026-12-01 (https://…)` or `configuration (/home/me/.forge/config.json)`. */
export function describePriceSource(sheet: Pick<PriceSheet, 'source' | 'asOf' | 'reference'>): string {
  const origin = sheet.source === 'table' ? 'capability table' : 'configuration';
  const details = [sheet.asOf === undefined ? undefined : `as of ${sheet.asOf}`, sheet.reference].filter(
    (part): part is string => part !== undefined,
  );
  return details.length === 0 ? origin : `${origin}, ${details.join(', ')}`;
}
