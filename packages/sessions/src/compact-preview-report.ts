import type { Message, ModelAdapter, TokenEstimateMethod } from '@forge/core';
import type { SessionCompactResult } from './session-compaction.js';

/** A contiguous run of stored messages, `[start, end)`, and what it costs by the model's counter. */
export interface PreviewRange {
  readonly start: number;
  readonly end: number;
  readonly messages: number;
  readonly tokens: number;
}

/** What `forge compact --dry-run` and `/compact --dry-run` report (`--json` prints it as is). */
export interface CompactPreviewReport {
  readonly sessionId: string;
  readonly dryRun: true;
  /** A preview never calls a model and never writes; both are always 0, stated for scripts. */
  readonly modelCalls: 0;
  readonly writes: 0;
  /** The model whose estimator counted every number, as `provider:model`, and how it counts. */
  readonly model: string;
  readonly tokenEstimator: TokenEstimateMethod;
  readonly recentTailTokens: number;
  readonly transcript: { readonly messages: number; readonly tokens: number };
  readonly alreadySummarized: PreviewRange;
  readonly eligiblePrefix: PreviewRange;
  readonly keptTail: PreviewRange;
  /** `compact`: the preview found a compaction to make; `nothing`: it did not, and says why. */
  readonly outcome: 'compact' | 'nothing';
  readonly reason?: string;
  /** Tokens of the new checkpoint's view, when there is one. */
  readonly checkpointTokens?: number;
  /**
   * The next request's estimate as things stand (the current checkpoint, if any, and every
   * message after it) and after the compaction: exactly what `forge compact` reports.
   */
  readonly projected: {
    readonly requestTokensBefore: number;
    readonly requestTokensAfter: number;
    readonly savedTokens: number;
  };
}

function range(start: number, end: number, counts: readonly number[]): PreviewRange {
  let tokens = 0;
  for (let index = start; index < end; index += 1) tokens += counts[index] ?? 0;
  return { start, end, messages: end - start, tokens };
}

/**
 * The report of a compaction preview (see `previewSessionCompaction` and `SessionHandle.compact`
 * with `preview`): which prefix would become the checkpoint, which messages stay verbatim, and the
 * request before and after, every count by `model`'s estimator.
 */
export async function compactPreviewReport(options: {
  readonly sessionId: string;
  readonly messages: readonly Message[];
  readonly summarizedThrough: number | undefined;
  readonly recentTailTokens: number;
  readonly model: ModelAdapter;
  readonly result: SessionCompactResult;
}): Promise<CompactPreviewReport> {
  const { messages, result, model } = options;
  const counts = await model.countMessageTokens(messages);
  const previous = Math.min(options.summarizedThrough ?? 0, messages.length);
  const { outcome } = result;
  const tailStart = outcome.kind === 'compacted' ? outcome.tailStart : previous;
  const base = {
    sessionId: options.sessionId,
    dryRun: true as const,
    modelCalls: 0 as const,
    writes: 0 as const,
    model: `${model.provider}:${model.modelId}`,
    tokenEstimator: model.capabilities.estimation,
    recentTailTokens: options.recentTailTokens,
    transcript: { messages: messages.length, tokens: counts.reduce((total, tokens) => total + tokens, 0) },
    alreadySummarized: range(0, previous, counts),
    eligiblePrefix: range(previous, tailStart, counts),
    keptTail: range(tailStart, messages.length, counts),
  };
  if (outcome.kind === 'compacted') {
    return {
      ...base,
      outcome: 'compact',
      checkpointTokens: outcome.built.checkpoint.estimatedTokens,
      projected: {
        requestTokensBefore: outcome.tokensBefore,
        requestTokensAfter: outcome.tokensAfter,
        savedTokens: outcome.reclaimedTokens,
      },
    };
  }
  const before = result.events.find((event) => event.type === 'context.compaction.skipped')?.tokensBefore ?? 0;
  return {
    ...base,
    outcome: 'nothing',
    reason: outcome.message,
    projected: { requestTokensBefore: before, requestTokensAfter: before, savedTokens: 0 },
  };
}
