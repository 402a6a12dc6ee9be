import { defaultRetryPolicy, resolveEndpointSettings, type RetryPolicy } from '@forge/ai-sdk-bridge';
import { InvalidInputError, type ModelCapabilities, type ModelRequest, type TokenEstimate } from '@forge/core';

export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';
export const OPENAI_KEY_VARIABLE = 'OPENAI_API_KEY';
export const OPENAI_BASE_URL_VARIABLE = 'OPENAI_BASE_URL';
/** Reasoning models can think for minutes before their first event; only total silence counts. */
export const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

/** Options of `createOpenAIModel`. Everything but `modelId` is optional. */
export interface OpenAIModelOptions {
  /** The model id as OpenAI names it, e.g. `gpt-5.1`. */
  readonly modelId: string;
  /** Default: `OPENAI_BASE_URL`, then `https://api.openai.com/v1`. Proxies and gateways go here. */
  readonly baseURL?: string;
  /** Default: `OPENAI_API_KEY`. */
  readonly apiKey?: string;
  /** Where the fallbacks are read from (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Extra HTTP headers on every request (gateway routing, organisation headers). */
  readonly headers?: Readonly<Record<string, string>>;
  /** `low` | `medium` | `high` …, passed to the provider unchanged. */
  readonly reasoningEffort?: string;
  /** Ask for reasoning summaries (`auto`, `concise`, `detailed`); default: the provider's default. */
  readonly reasoningSummary?: string;
  /** Treat an id the AI SDK does not know as a reasoning model (sends `include: reasoning.encrypted_content`). */
  readonly forceReasoning?: boolean;
  readonly retry?: Partial<RetryPolicy>;
  /** Abandon a request after this long without any data (default 300 000 ms). */
  readonly idleTimeoutMs?: number;
  /** Limits from configuration; they override the capability table entry field by field. */
  readonly capabilities?: Partial<ModelCapabilities>;
  /** An estimator to use instead of the default one. */
  readonly estimate?: (request: ModelRequest) => Promise<TokenEstimate>;
}

export interface ResolvedOpenAISettings {
  readonly baseURL: string;
  readonly apiKey: string;
  /** Where the key came from, for error messages: the variable, or undefined when passed in. */
  readonly keyVariable: string | undefined;
  readonly retry: RetryPolicy;
  readonly idleTimeoutMs: number;
}

/** Resolves base URL and key from options and the environment; a missing key names the variable. */
export function resolveOpenAISettings(options: OpenAIModelOptions): ResolvedOpenAISettings {
  if (options.modelId.trim().length === 0) throw new InvalidInputError({ message: 'OpenAI model id is empty; pass a model id such as gpt-5.1.' });
  const endpoint = resolveEndpointSettings({
    providerLabel: 'OpenAI',
    ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
    baseURLVariable: OPENAI_BASE_URL_VARIABLE,
    defaultBaseURL: DEFAULT_OPENAI_BASE_URL,
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    keyVariable: OPENAI_KEY_VARIABLE,
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
