import {
  createConservativeEstimator,
  createRequestEstimator,
  type FramingOverhead,
  type RequestEstimator,
  type ToolDefinition,
} from '@forge/core';
import {
  countO200kTokens,
  loadO200kTokenizer,
  OPENAI_FRAMING_OVERHEAD,
  type O200kTokenizer,
} from '@forge/model-openai';

/*
 * How the policy model's request is counted twice: by Forge (the estimator the adapter of the
 * model it plays would use) and by its simulated provider (what the provider reports as usage).
 * The two differ the way they differ in real life, so estimator error is measured, not assumed:
 *
 * - playing an OpenAI model, Forge counts with the OpenAI adapter's exact o200k estimator, and the
 *   provider counts the same o200k tokens with its own, tighter framing (about three tokens per
 *   message, schemas rendered compactly, a fixed preamble): the small error of an exact counter;
 * - playing any other model, Forge uses the conservative estimator (what the DeepSeek and
 *   compatible adapters fall back to), and the provider counts a quarter token per UTF-8 byte.
 */

/** Which model a fixture's policy model plays; `generic` is any model without a tokenizer Forge ships. */
export type PlayedModel = 'openai' | 'generic';

/** Framing the simulated OpenAI provider really adds (Forge models upper bounds of it). */
const OPENAI_PROVIDER_FRAMING: Partial<FramingOverhead> = {
  perMessage: 3,
  perToolCall: 5,
  perToolResult: 5,
  perReasoning: 3,
  perToolDefinition: 6,
  perRequest: 40,
  marginRatio: 0,
};

/** The simulated provider's framing for other models: four tokens a message, little around parts. */
const GENERIC_PROVIDER_FRAMING: Partial<FramingOverhead> = {
  perMessage: 4,
  perToolCall: 2,
  perToolResult: 2,
  perReasoning: 0,
  perToolDefinition: 4,
  perRequest: 3,
  marginRatio: 0,
};

function quarterTokenPerByte(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 4);
}

/** A provider renders a tool for its model more compactly than the wire JSON Forge counts. */
function compactTool(tool: ToolDefinition): string {
  return `${tool.name}: ${tool.description}\n${JSON.stringify(tool.inputSchema)}`;
}

/*
 * Sessions of one eval run read the same generated files and command outputs in every mode, so
 * o200k counts of texts are kept for the process; the key is the text itself. Bounded by
 * characters held, oldest first out.
 */
const MEMO_CHARS = 64 * 1024 * 1024;
const memo = new Map<string, number>();
let memoChars = 0;

function remembered(tokenizer: O200kTokenizer, text: string): number {
  const known = memo.get(text);
  if (known !== undefined) return known;
  const tokens = countO200kTokens(tokenizer, text);
  if (text.length < 256) return tokens;
  memo.set(text, tokens);
  memoChars += text.length;
  while (memoChars > MEMO_CHARS) {
    const oldest = memo.keys().next().value as string;
    memo.delete(oldest);
    memoChars -= oldest.length;
  }
  return tokens;
}

/** Forge's estimator and the provider's counter for the model a policy model plays. */
export interface PlayedCounters {
  /** What Forge estimates: the estimator of the adapter of that model. */
  readonly forge: RequestEstimator;
  /** What the provider reports. */
  readonly provider: RequestEstimator;
}

/**
 * The two counters for `played`. For OpenAI, Forge's estimator is built here with the settings
 * the OpenAI adapter's `createO200kEstimator` uses (exact o200k counts, `OPENAI_FRAMING_OVERHEAD`)
 * rather than by calling it, so that counts of long texts are shared across the sessions of the
 * process (the memo above).
 */
export async function playedCounters(played: PlayedModel): Promise<PlayedCounters> {
  if (played === 'generic') {
    return {
      forge: createConservativeEstimator(),
      provider: createRequestEstimator({
        countText: quarterTokenPerByte,
        method: 'provider-tokenizer',
        confidence: 'exact',
        overhead: GENERIC_PROVIDER_FRAMING,
        renderTool: compactTool,
      }),
    };
  }
  const tokenizer = await loadO200kTokenizer();
  const countText = (text: string) => remembered(tokenizer, text);
  return {
    forge: createRequestEstimator({
      countText,
      method: 'provider-tokenizer',
      confidence: 'exact',
      overhead: OPENAI_FRAMING_OVERHEAD,
    }),
    provider: createRequestEstimator({
      countText,
      method: 'provider-tokenizer',
      confidence: 'exact',
      overhead: OPENAI_PROVIDER_FRAMING,
      renderTool: compactTool,
    }),
  };
}
