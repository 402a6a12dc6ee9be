import {
  resolveAdapterSettings,
  type AdapterOptions,
  type ResolvedAdapterSettings,
  type VendorEndpoint,
} from '@forge/ai-sdk-bridge';

/** Options of `createOpenAIModel`. Everything but `modelId` is optional. */
export interface OpenAIModelOptions extends AdapterOptions {
  /** The model id as OpenAI names it, e.g. `gpt-5.1`. */
  readonly modelId: string;
  /** Default: `OPENAI_BASE_URL`, then `https://api.openai.com/v1`. Proxies and gateways go here. Key default: `OPENAI_API_KEY`. */
  readonly baseURL?: string;
  /** `low` | `medium` | `high` …, passed to the provider unchanged. */
  readonly reasoningEffort?: string;
  /** Ask for reasoning summaries (`auto`, `concise`, `detailed`); default: the provider's default. */
  readonly reasoningSummary?: string;
  /** Treat an id the AI SDK does not know as a reasoning model (sends `include: reasoning.encrypted_content`). */
  readonly forceReasoning?: boolean;
}

export const OPENAI_ENDPOINT: VendorEndpoint = {
  providerLabel: 'OpenAI',
  modelIdExample: 'gpt-5.1',
  baseURLVariable: 'OPENAI_BASE_URL',
  defaultBaseURL: 'https://api.openai.com/v1',
  keyVariable: 'OPENAI_API_KEY',
  keyRequired: true,
};

/** Resolves base URL and key from options and the environment; a missing key names the variable. */
export function resolveOpenAISettings(options: OpenAIModelOptions): ResolvedAdapterSettings {
  return resolveAdapterSettings(OPENAI_ENDPOINT, options);
}
