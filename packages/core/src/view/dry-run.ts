import type { Message } from '../messages.js';
import { selectTail, type TailBudget } from './select-tail.js';

/** A contiguous range of the transcript, `[start, end)`, and what it costs. */
export interface TranscriptRange {
  readonly start: number;
  readonly end: number;
  readonly messages: number;
  readonly groups: number;
  readonly tokens: number;
}

export interface CompactionPreview {
  readonly budgetTokens: number;
  readonly totalMessages: number;
  readonly totalTokens: number;
  /** Messages an existing checkpoint already covers (`[0, summarizedThrough)`); empty without one. */
  readonly alreadySummarized: TranscriptRange;
  /** The contiguous completed prefix a new checkpoint could summarize. */
  readonly eligiblePrefix: TranscriptRange;
  /** The recent tail kept verbatim. */
  readonly keptTail: TranscriptRange;
  /** True when pending tool calls force the tail over `budgetTokens`. */
  readonly tailOverBudget: boolean;
}

export interface CompactionPreviewOptions extends TailBudget {
  /** End of the range an existing checkpoint summarized, if the session has one. */
  readonly summarizedThrough?: number;
}

/**
 * What `compact --dry-run` shows: which prefix a compaction could summarize and which recent
 * tail it would keep verbatim, with token counts. Pure: no model call, no write, input untouched.
 */
export function dryRunCompaction(messages: readonly Message[], options: CompactionPreviewOptions): CompactionPreview {
  const selection = selectTail(messages, options);
  const { tailStart, groups, messageTokens } = selection;
  const summarizedThrough = Math.max(0, Math.min(options.summarizedThrough ?? 0, tailStart));

  const range = (start: number, end: number): TranscriptRange => {
    let tokens = 0;
    for (let index = start; index < end; index += 1) tokens += messageTokens[index] ?? 0;
    const groupCount = groups.filter((group) => group.start >= start && group.end <= end).length;
    return { start, end, messages: end - start, groups: groupCount, tokens };
  };

  return {
    budgetTokens: options.budgetTokens,
    totalMessages: messages.length,
    totalTokens: messageTokens.reduce((total, tokens) => total + tokens, 0),
    alreadySummarized: range(0, summarizedThrough),
    eligiblePrefix: range(summarizedThrough, tailStart),
    keptTail: range(tailStart, messages.length),
    tailOverBudget: selection.overBudget,
  };
}
