import {
  resolveAdapterSettings,
  type AdapterOptions,
  type ResolvedAdapterSettings,
  type VendorEndpoint,
} from '@forge/ai-sdk-bridge';
import { InvalidInputError } from '@forge/core';

/** How long Anthropic keeps a prefix Forge marks for caching: 5 minutes (writes at 1.25× input) or an hour (2×). */
export type AnthropicCacheLifetime = '5m' | '1h';

export const ANTHROPIC_CACHE_LIFETIMES: readonly AnthropicCacheLifetime[] = ['5m', '1h'];

export const DEFAULT_ANTHROPIC_CACHE_LIFETIME: AnthropicCacheLifetime = '5m';

/** Options of `createAnthropicModel`. Everything but `modelId` is optional. */
export interface AnthropicModelOptions extends AdapterOptions {
  /** The model id as Anthropic names it, e.g. `claude-sonnet-4-6`. */
  readonly modelId: string;
  /** Default: `ANTHROPIC_BASE_URL`, then `https://api.anthropic.com/v1`. Key default: `ANTHROPIC_API_KEY`. */
  readonly baseURL?: string;
  /** The lifetime of every cache breakpoint Forge sets (default `5m`). */
  readonly cacheLifetime?: AnthropicCacheLifetime;
}

export const ANTHROPIC_ENDPOINT: VendorEndpoint = {
  providerLabel: 'Anthropic',
  modelIdExample: 'claude-sonnet-4-6',
  baseURLVariable: 'ANTHROPIC_BASE_URL',
  defaultBaseURL: 'https://api.anthropic.com/v1',
  keyVariable: 'ANTHROPIC_API_KEY',
  keyRequired: true,
};

/** Resolves base URL and key from options and the environment; a missing key names the variable. */
export function resolveAnthropicSettings(options: AnthropicModelOptions): ResolvedAdapterSettings {
  return resolveAdapterSettings(ANTHROPIC_ENDPOINT, options);
}

/** The lifetime to use, refusing anything but `5m` and `1h` with the value and what to set instead. */
export function checkCacheLifetime(value: unknown, where = 'the cache lifetime'): AnthropicCacheLifetime {
  if (value === undefined) return DEFAULT_ANTHROPIC_CACHE_LIFETIME;
  if (value === '5m' || value === '1h') return value;
  throw new InvalidInputError({
    message: `${where} is ${JSON.stringify(value)}; Anthropic caches for "5m" or "1h" only. Set one of those.`,
  });
}
