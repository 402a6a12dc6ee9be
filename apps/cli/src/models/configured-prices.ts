import type { ForgeConfig, ValueProvenance } from '@forge/config';
import type { PriceSheet } from '@forge/core';

/**
 * The `prices` of the configuration as price sheets by model id, each with source `config` and
 * the file it came from as its reference, so every cost shown says whose figures it used.
 */
export function configuredPriceSheets(
  config: Pick<ForgeConfig, 'prices'>,
  provenance: Readonly<Record<string, ValueProvenance>>,
): ReadonlyMap<string, PriceSheet> {
  const sheets = new Map<string, PriceSheet>();
  for (const [id, entry] of Object.entries(config.prices)) {
    const origin = provenance[`prices.${id}`];
    const reference = origin?.file ?? (origin === undefined ? undefined : `${origin.source} configuration`);
    sheets.set(id, { currency: 'USD', ...entry, source: 'config', ...(reference === undefined ? {} : { reference }) });
  }
  return sheets;
}
