import type { TokenEstimate, Usage } from '../model/adapter.js';

/** A preflight estimate set beside what the provider reported for the same request. */
export type UsageReconciliation = {
  readonly estimatedTokens: number;
  /** The provider's input count; it already contains cache reads and cache writes. */
  readonly reportedInputTokens?: number;
  /** Reported for information: part of `reportedInputTokens`, never added to it. */
  readonly cacheReadTokens?: number;
  /** Reported for information: part of `reportedInputTokens`, so it counts as context. */
  readonly cacheWriteTokens?: number;
  /** estimate − reported: positive when the estimate was high, negative when it undercounted. */
  readonly errorTokens?: number;
  /** errorTokens as a percentage of the reported input, to one decimal. */
  readonly errorPercent?: number;
  /** The provider saw more tokens than estimated, by more than the safety buffer. */
  readonly undercountBeyondBuffer: boolean;
};

/**
 * Compares an estimate with provider usage. Input usage follows the AI SDK convention core uses:
 * `inputTokens` is the total the model read, cache reads and writes included. Cache reads are
 * therefore never added on top (that double counting makes tools compact far too early), and cache
 * writes need no separate addition either. Nothing to compare when the provider reported no input.
 */
export function reconcileUsage(estimate: TokenEstimate, usage: Usage, bufferTokens: number): UsageReconciliation {
  const reported = usage.inputTokens;
  const cache = {
    ...(usage.cacheReadTokens === undefined ? {} : { cacheReadTokens: usage.cacheReadTokens }),
    ...(usage.cacheWriteTokens === undefined ? {} : { cacheWriteTokens: usage.cacheWriteTokens }),
  };
  if (reported === undefined) return { estimatedTokens: estimate.tokens, ...cache, undercountBeyondBuffer: false };
  const errorTokens = estimate.tokens - reported;
  return {
    estimatedTokens: estimate.tokens,
    reportedInputTokens: reported,
    ...cache,
    errorTokens,
    ...(reported > 0 ? { errorPercent: Math.round((errorTokens / reported) * 1000) / 10 } : {}),
    undercountBeyondBuffer: -errorTokens > bufferTokens,
  };
}
