import {
  resolveAdapterSettings,
  type AdapterOptions,
  type ResolvedAdapterSettings,
  type VendorEndpoint,
} from '@forge/ai-sdk-bridge';

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
  baseURLVariable: 'DEEPSEEK_BASE_URL',
  defaultBaseURL: 'https://api.deepseek.com',
  keyVariable: 'DEEPSEEK_API_KEY',
  keyRequired: true,
};

/** Resolves base URL and key from options and the environment; a missing key names the variable. */
export function resolveDeepSeekSettings(options: DeepSeekModelOptions): ResolvedAdapterSettings {
  return resolveAdapterSettings(DEEPSEEK_ENDPOINT, options);
}
