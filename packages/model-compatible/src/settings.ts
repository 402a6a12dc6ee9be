import { defaultRetryPolicy, resolveEndpointSettings, type RetryPolicy } from '@forge/ai-sdk-bridge';
import type { ModelRequest, PriceSheet, TokenEstimate } from '@forge/core';
import { z } from 'zod';

export const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

/**
 * One OpenAI-compatible model as configuration describes it (Ollama, llama.cpp server, vLLM,
 * LM Studio, a gateway). Adding a vendor is a new entry like this, not code.
 */
export const compatibleModelConfigSchema = z
  .object({
    /** The configured name, used in messages: `ollama`, `lab-vllm`. */
    name: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'use 1–64 letters, digits, ".", "_" or "-"'),
    /** The server's Chat Completions base URL, e.g. `http://127.0.0.1:11434/v1`. */
    baseURL: z.string().url(),
    /** The model id the server expects. */
    modelId: z.string().min(1),
    /** The model's context window in tokens, as the server is configured (e.g. Ollama `num_ctx`). */
    contextWindowTokens: z.number().int().positive(),
    maxOutputTokens: z.number().int().positive().optional(),
    /** The environment variable holding the API key, when the server wants one. */
    apiKeyVariable: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).optional(),
    headers: z.record(z.string(), z.string()).optional(),
    /**
     * How to count requests: a tokenizer family Forge ships (`qwen3`, `llama3`) or the absolute
     * path of the model's Hugging Face `tokenizer.json`. Without it, core's conservative estimate.
     */
    tokenizer: z.string().min(1).optional(),
  })
  .strict();

export type CompatibleModelConfig = z.infer<typeof compatibleModelConfigSchema>;

/** Options of `createCompatibleModel`: a configuration entry plus runtime settings. */
export interface CompatibleModelOptions extends CompatibleModelConfig {
  /** A key passed directly instead of through `apiKeyVariable`. */
  readonly apiKey?: string;
  /** Where `apiKeyVariable` is read from (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly retry?: Partial<RetryPolicy>;
  /** Abandon a request after this long without any data (default 300 000 ms). */
  readonly idleTimeoutMs?: number;
  readonly estimate?: (request: ModelRequest) => Promise<TokenEstimate>;
  /** Prices from configuration (`prices["compatible:<name>"]`); without them costs are shown in tokens only. */
  readonly prices?: PriceSheet;
}

export interface ResolvedCompatibleSettings {
  readonly label: string;
  readonly baseURL: string;
  readonly apiKey: string | undefined;
  readonly keyVariable: string | undefined;
  readonly retry: RetryPolicy;
  readonly idleTimeoutMs: number;
}

export function resolveCompatibleSettings(options: CompatibleModelOptions): ResolvedCompatibleSettings {
  const label = `the OpenAI-compatible server "${options.name}"`;
  const endpoint = resolveEndpointSettings({
    providerLabel: label,
    baseURL: options.baseURL,
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    ...(options.apiKeyVariable === undefined ? {} : { keyVariable: options.apiKeyVariable }),
    keyRequired: options.apiKeyVariable !== undefined,
    env: options.env ?? process.env,
  });
  return {
    label,
    baseURL: endpoint.baseURL,
    apiKey: endpoint.apiKey,
    keyVariable: endpoint.keyVariable,
    retry: { ...defaultRetryPolicy, ...options.retry },
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
  };
}
