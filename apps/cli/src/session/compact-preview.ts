import { toolDefinitions, type Message, type ModelAdapter, type TokenEstimateMethod } from '@forge/core';
import { formatMessageRange } from '@forge/core/budget';
import type { Redactor } from '@forge/core/redaction';
import type { SessionTranscript } from '@forge/persistence';
import { previewSessionCompaction, SESSION_CHECKPOINT_OPTIONS, type SessionCompactResult } from '@forge/sessions';
import { workspaceArtifactHashes } from '@forge/tools';
import type { AgentSetup } from '../agent/agent-setup.js';
import type { Style } from '../output/style.js';

/**
 * The compaction `forge compact` would make of a stored session now, computed the same way with
 * the same model and tools (what the next turn would advertise and load); no lock, no model
 * call, no write. `forge compact --dry-run` reports it; `forge context` prices the request it leaves.
 */
export async function previewStoredCompaction(
  session: SessionTranscript,
  agent: AgentSetup,
  redactor: Redactor,
): Promise<SessionCompactResult> {
  const surface = await agent.surface(session);
  return previewSessionCompaction(session, {
    model: agent.model,
    instructions: agent.instructions(surface),
    tools: toolDefinitions(surface.advertised),
    context: agent.context,
    compaction: SESSION_CHECKPOINT_OPTIONS,
    artifactHashes: workspaceArtifactHashes(agent.root),
    redactor,
  });
}

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

const number = (value: number) => value.toLocaleString('en-US');

function describeRange(part: PreviewRange): string {
  if (part.messages === 0) return 'none';
  return `messages ${formatMessageRange(part.start, part.end)} (${part.messages} message${part.messages === 1 ? '' : 's'}) · ~${number(part.tokens)} tokens`;
}

/** The human-readable preview. */
export function renderCompactPreview(report: CompactPreviewReport, style: Style): string {
  const { projected } = report;
  const lines = [
    `${style.bold(`Compaction preview for ${report.sessionId}`)} ${style.dim('(dry run: no model call, nothing written)')}`,
    `  transcript         ${report.transcript.messages} messages · ~${number(report.transcript.tokens)} tokens`,
  ];
  if (report.alreadySummarized.messages > 0)
    lines.push(`  already summarized ${describeRange(report.alreadySummarized)}`);
  lines.push(
    `  eligible prefix    ${describeRange(report.eligiblePrefix)}`,
    `  kept verbatim      ${describeRange(report.keptTail)} ${style.dim(`(recent tail budget ${number(report.recentTailTokens)})`)}`,
  );
  if (report.outcome === 'nothing') {
    lines.push(
      `  next request       ~${number(projected.requestTokensBefore)} tokens: nothing to compact (${report.reason ?? 'no savings'})`,
    );
  } else {
    lines.push(
      `  next request       ~${number(projected.requestTokensBefore)} → ~${number(projected.requestTokensAfter)} tokens ` +
        `(checkpoint of ~${number(report.checkpointTokens ?? 0)}) · saves ~${number(projected.savedTokens)}`,
    );
  }
  lines.push(
    style.dim(
      `Counted by ${report.model}'s estimator, as forge compact and forge context count. The full transcript is always kept; a checkpoint only changes what the model is sent in mode compact.`,
    ),
  );
  return `${lines.join('\n')}\n`;
}
