import type { LanguageModelV4FinishReason, LanguageModelV4Usage } from '@ai-sdk/provider';
import type { FinishReason, Usage } from '@forge/core';

/**
 * Maps AI SDK usage onto core's shape. Cache reads and reasoning stay inside input and output
 * totals, as in core; a count the provider did not report stays undefined.
 */
export function toCoreUsage(usage: LanguageModelV4Usage): Usage {
  return {
    inputTokens: usage.inputTokens.total,
    cacheReadTokens: usage.inputTokens.cacheRead,
    cacheWriteTokens: usage.inputTokens.cacheWrite,
    outputTokens: usage.outputTokens.total,
    reasoningTokens: usage.outputTokens.reasoning,
  };
}

/** Core's finish reason for a completed stream. `interrupted` never gets here: it is a cut stream. */
export function toCoreFinishReason(reason: LanguageModelV4FinishReason): FinishReason {
  switch (reason.unified) {
    case 'stop':
    case 'length':
    case 'content-filter':
    case 'tool-calls':
    case 'error':
      return reason.unified;
    default:
      return 'other';
  }
}
