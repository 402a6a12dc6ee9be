import { resolveAdapterSettings, type AdapterOptions, type ResolvedAdapterSettings, type VendorEndpoint } from '@forge/ai-sdk-bridge';

export const DEFAULT_DEEPSEEK_BASE_URL = 'https://api.deepseek.com';
export const DEEPSEEK_KEY_VARIABLE = 'DEEPSEEK_API_KEY';
export const DEEPSEEK_BASE_URL_VARIABLE = 'DEEPSEEK_BASE_URL';

/** Options of `createDeepSeekModel`. Everything but `modelId` is optional. */
export interface DeepSeekModelOptions extends AdapterOptions {
  /** The model id as DeepSeek names it, e.g. `deepseek-v4-pro`. */
  readonly modelId: string;
  /** Default: `DEEPSEEK_BASE_URL`, then `https://api.deepseek.com`. Key default: `DEEPSEEK_API_KEY`. */
  readonly baseURL?: string;
  /** Thinking mode; V4 models think unless it is `disabled`. */
  readonly thinking?: 'enabled' | 'disabled';
  readonly reasoningEffort?: 'low' | 'high' | 'max';
}

export const DEEPSEEK_ENDPOINT: VendorEndpoint = {
  providerLabel: 'DeepSeek',
  modelIdExample: 'deepseek-v4-pro',
  baseURLVariable: DEEPSEEK_BASE_URL_VARIABLE,
  defaultBaseURL: DEFAULT_DEEPSEEK_BASE_URL,
  keyVariable: DEEPSEEK_KEY_VARIABLE,
  keyRequired: true,
};

/** Resolves base URL and key from options and the environment; a missing key names the variable. */
export function resolveDeepSeekSettings(options: DeepSeekModelOptions): ResolvedAdapterSettings {
  return resolveAdapterSettings(DEEPSEEK_ENDPOINT, options);
}
