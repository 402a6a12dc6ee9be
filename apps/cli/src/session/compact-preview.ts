import { dryRunCompaction, type Message, type TranscriptRange } from '@forge/core';
import { conservativeMessageTokens } from '@forge/persistence';
import type { Style } from '../output/style.js';

/** What `forge compact --dry-run` and `/compact --dry-run` report (`--json` prints it as is). */
export interface CompactPreviewReport {
  readonly sessionId: string;
  readonly dryRun: true;
  /** A preview never calls a model and never writes; both are always 0, stated for scripts. */
  readonly modelCalls: 0;
  readonly writes: 0;
  readonly tokenEstimator: 'conservative-bytes';
  readonly recentTailTokens: number;
  readonly summaryTargetTokens: number;
  readonly transcript: { readonly messages: number; readonly tokens: number };
  readonly alreadySummarized: TranscriptRange;
  readonly eligiblePrefix: TranscriptRange;
  readonly keptTail: TranscriptRange;
  readonly tailOverBudget: boolean;
  /** History tokens as things stand (everything not yet summarized) and after the prefix became a checkpoint. */
  readonly projected: { readonly historyTokensBefore: number; readonly historyTokensAfter: number; readonly savedTokens: number };
}

/**
 * Previews a compaction of `messages`: the contiguous completed prefix a checkpoint would
 * summarize, the recent tail kept verbatim, and the history budget before and after, assuming
 * the prefix becomes a checkpoint of `summaryTargetTokens`. Pure: no model call, no write.
 */
export function previewCompaction(options: {
  readonly sessionId: string;
  readonly messages: readonly Message[];
  readonly summarizedThrough: number | undefined;
  readonly recentTailTokens: number;
  readonly summaryTargetTokens: number;
}): CompactPreviewReport {
  const preview = dryRunCompaction(options.messages, {
    budgetTokens: options.recentTailTokens,
    countTokens: conservativeMessageTokens,
    ...(options.summarizedThrough === undefined ? {} : { summarizedThrough: options.summarizedThrough }),
  });
  const existing = preview.alreadySummarized.messages > 0 ? options.summaryTargetTokens : 0;
  const before = existing + preview.eligiblePrefix.tokens + preview.keptTail.tokens;
  const after = preview.eligiblePrefix.messages === 0 ? before : options.summaryTargetTokens + preview.keptTail.tokens;
  return {
    sessionId: options.sessionId,
    dryRun: true,
    modelCalls: 0,
    writes: 0,
    tokenEstimator: 'conservative-bytes',
    recentTailTokens: options.recentTailTokens,
    summaryTargetTokens: options.summaryTargetTokens,
    transcript: { messages: preview.totalMessages, tokens: preview.totalTokens },
    alreadySummarized: preview.alreadySummarized,
    eligiblePrefix: preview.eligiblePrefix,
    keptTail: preview.keptTail,
    tailOverBudget: preview.tailOverBudget,
    projected: { historyTokensBefore: before, historyTokensAfter: after, savedTokens: before - after },
  };
}

const number = (value: number) => value.toLocaleString('en-US');

function describeRange(range: TranscriptRange): string {
  if (range.messages === 0) return 'none';
  return `#${range.start + 1}–#${range.end} (${range.messages} message${range.messages === 1 ? '' : 's'}, ${range.groups} group${range.groups === 1 ? '' : 's'}) · ~${number(range.tokens)} tokens`;
}

/** The human-readable preview. */
export function renderCompactPreview(report: CompactPreviewReport, style: Style): string {
  const { projected } = report;
  const lines = [
    `${style.bold(`Compaction preview for ${report.sessionId}`)} ${style.dim('(dry run: no model call, nothing written)')}`,
    `  transcript         ${report.transcript.messages} messages · ~${number(report.transcript.tokens)} tokens`,
  ];
  if (report.alreadySummarized.messages > 0) lines.push(`  already summarized ${describeRange(report.alreadySummarized)}`);
  lines.push(
    `  eligible prefix    ${describeRange(report.eligiblePrefix)}`,
    `  kept verbatim      ${describeRange(report.keptTail)} ${style.dim(`(recent tail budget ${number(report.recentTailTokens)})`)}`,
  );
  if (report.tailOverBudget) lines.push(style.yellow('  the tail is over its budget: its last tool calls are still waiting for results and are always kept'));
  if (report.eligiblePrefix.messages === 0) {
    lines.push(`  projected history  ~${number(projected.historyTokensBefore)} tokens: nothing to compact, the history fits the recent tail`);
  } else {
    lines.push(
      `  projected history  ~${number(projected.historyTokensBefore)} → ~${number(projected.historyTokensAfter)} tokens ` +
        `(checkpoint of ~${number(report.summaryTargetTokens)}) · ${projected.savedTokens > 0 ? `saves ~${number(projected.savedTokens)}` : 'would not save tokens'}`,
    );
  }
  lines.push(
    style.dim('Token counts are conservative estimates (UTF-8 bytes / 3). The full transcript is always kept; a checkpoint only changes what the model is sent.'),
  );
  return `${lines.join('\n')}\n`;
}
