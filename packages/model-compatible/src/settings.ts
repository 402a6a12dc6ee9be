import {
  resolveAdapterSettings,
  type AdapterOptions,
  type ResolvedAdapterSettings,
  type VendorEndpoint,
} from '@forge/ai-sdk-bridge';
import type { PriceSheet } from '@forge/core';
import { z } from 'zod';

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
    apiKeyVariable: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
      .optional(),
    headers: z.record(z.string(), z.string()).optional(),
    /**
     * How to count requests: a tokenizer family Forge ships (`qwen3`, `llama3`) or the absolute
     * path of the model's Hugging Face `tokenizer.json`. Without it, core's conservative estimate.
     */
    tokenizer: z.string().min(1).optional(),
  })
  .strict();

export type CompatibleModelConfig = z.infer<typeof compatibleModelConfigSchema>;

/** Options of `createCompatibleModel`: a configuration entry plus runtime settings (`apiKey` instead of `apiKeyVariable`). */
export interface CompatibleModelOptions
  extends CompatibleModelConfig, Omit<AdapterOptions, 'baseURL' | 'headers' | 'capabilities'> {
  /** Prices from configuration (`prices["compatible:<name>"]`); without them costs are shown in tokens only. */
  readonly prices?: PriceSheet;
}

/** The entry's server: its base URL, and a key only when the entry names a variable for one. */
export function compatibleEndpoint(options: CompatibleModelOptions): VendorEndpoint {
  return {
    providerLabel: `the OpenAI-compatible server "${options.name}"`,
    ...(options.apiKeyVariable === undefined ? {} : { keyVariable: options.apiKeyVariable }),
    keyRequired: options.apiKeyVariable !== undefined,
  };
}

export function resolveCompatibleSettings(options: CompatibleModelOptions): ResolvedAdapterSettings {
  return resolveAdapterSettings(compatibleEndpoint(options), options);
}
