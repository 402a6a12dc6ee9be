import { defaultRetryPolicy, resolveEndpointSettings, type RetryPolicy } from '@forge/ai-sdk-bridge';
import { InvalidInputError, type ModelCapabilities, type ModelRequest, type TokenEstimate } from '@forge/core';

export const DEFAULT_DEEPSEEK_BASE_URL = 'https://api.deepseek.com';
export const DEEPSEEK_KEY_VARIABLE = 'DEEPSEEK_API_KEY';
export const DEEPSEEK_BASE_URL_VARIABLE = 'DEEPSEEK_BASE_URL';
export const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

/** Options of `createDeepSeekModel`. Everything but `modelId` is optional. */
export interface DeepSeekModelOptions {
  /** The model id as DeepSeek names it, e.g. `deepseek-v4-pro`. */
  readonly modelId: string;
  /** Default: `DEEPSEEK_BASE_URL`, then `https://api.deepseek.com`. */
  readonly baseURL?: string;
  /** Default: `DEEPSEEK_API_KEY`. */
  readonly apiKey?: string;
  /** Where the fallbacks are read from (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly headers?: Readonly<Record<string, string>>;
  /** Thinking mode; V4 models think unless it is `disabled`. */
  readonly thinking?: 'enabled' | 'disabled';
  readonly reasoningEffort?: 'low' | 'high' | 'max';
  readonly retry?: Partial<RetryPolicy>;
  /** Abandon a request after this long without any data (default 300 000 ms). */
  readonly idleTimeoutMs?: number;
  /** Limits from configuration; they override the capability table entry field by field. */
  readonly capabilities?: Partial<ModelCapabilities>;
  readonly estimate?: (request: ModelRequest) => Promise<TokenEstimate>;
}

export interface ResolvedDeepSeekSettings {
  readonly baseURL: string;
  readonly apiKey: string;
  readonly keyVariable: string | undefined;
  readonly retry: RetryPolicy;
  readonly idleTimeoutMs: number;
}

export function resolveDeepSeekSettings(options: DeepSeekModelOptions): ResolvedDeepSeekSettings {
  if (options.modelId.trim().length === 0) throw new InvalidInputError({ message: 'DeepSeek model id is empty; pass a model id such as deepseek-v4-pro.' });
  const endpoint = resolveEndpointSettings({
    providerLabel: 'DeepSeek',
    ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
    baseURLVariable: DEEPSEEK_BASE_URL_VARIABLE,
    defaultBaseURL: DEFAULT_DEEPSEEK_BASE_URL,
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    keyVariable: DEEPSEEK_KEY_VARIABLE,
    keyRequired: true,
    env: options.env ?? process.env,
  });
  return {
    baseURL: endpoint.baseURL,
    apiKey: endpoint.apiKey ?? '',
    keyVariable: endpoint.keyVariable,
    retry: { ...defaultRetryPolicy, ...options.retry },
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
  };
}
