import { InvalidInputError, type ModelCapabilities, type ModelRequest, type TokenEstimate } from '@forge/core';
import { resolveEndpointSettings, type EndpointSettingsInput } from './endpoint-settings.js';
import { defaultRetryPolicy, type RetryPolicy } from './retry.js';

/** Reasoning models can think for minutes before their first event; only total silence counts. */
const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

/** What every adapter accepts besides its vendor's own options. */
export interface AdapterOptions {
  readonly baseURL?: string;
  readonly apiKey?: string | undefined;
  /** Where the base URL and key fallbacks are read from (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Extra HTTP headers on every request (gateway routing, organisation headers). */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly retry?: Partial<RetryPolicy>;
  /** Abandon a request after this long without any data (default 300 000 ms). */
  readonly idleTimeoutMs?: number;
  /** Limits from configuration; they override the profile's capabilities field by field. */
  readonly capabilities?: Partial<ModelCapabilities>;
  /** An estimator to use instead of the profile's. */
  readonly estimate?: (request: ModelRequest) => Promise<TokenEstimate>;
}

/** Where one vendor's endpoint and key come from. */
export interface VendorEndpoint extends Omit<EndpointSettingsInput, 'baseURL' | 'apiKey' | 'env'> {
  /** A model id to suggest when none was given (`gpt-5.1`); without it the id is not checked. */
  readonly modelIdExample?: string;
}

export interface ResolvedAdapterSettings {
  /** How users know the provider in messages. */
  readonly label: string;
  /** Without a trailing slash. */
  readonly baseURL: string;
  readonly apiKey: string | undefined;
  /** Where the key came from, for error messages: the variable, or undefined when passed in. */
  readonly keyVariable: string | undefined;
  readonly retry: RetryPolicy;
  readonly idleTimeoutMs: number;
}

/** Resolves endpoint, key, retry and idle timeout; a missing key or bad base URL says what to fix. */
export function resolveAdapterSettings(
  endpoint: VendorEndpoint,
  options: AdapterOptions & { readonly modelId?: string },
): ResolvedAdapterSettings {
  const { modelIdExample, ...where } = endpoint;
  if (modelIdExample !== undefined && (options.modelId ?? '').trim().length === 0) {
    throw new InvalidInputError({
      message: `${endpoint.providerLabel} model id is empty; pass a model id such as ${modelIdExample}.`,
    });
  }
  const resolved = resolveEndpointSettings({
    ...where,
    baseURL: options.baseURL,
    apiKey: options.apiKey,
    env: options.env ?? process.env,
  });
  return {
    label: endpoint.providerLabel,
    ...resolved,
    retry: { ...defaultRetryPolicy, ...options.retry },
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
  };
}
