import { type CompactionEvent, type CompactorDisclosure, type ContextMode, type ModelAdapter } from '@forge/core';
import { formatMessageRange } from '@forge/core/budget';
import { selectViewRange } from '@forge/core/view';
import type { ActiveCheckpoint, ResolvedCheckpoint, SessionCompactResult } from '@forge/sessions';
import type { Style } from '../output/style.js';

/*
 * What `forge compact`, `forge checkpoint show`, `/compact` and `/checkpoint` print. Text for
 * people, and one JSON document each for scripts.
 */

const number = (value: number) => value.toLocaleString('en-US');
const TRANSCRIPT_KEPT = 'The full transcript is kept; a checkpoint only changes what later turns send.';

/** One sentence naming who receives the conversation when a compactor model builds the checkpoint, and the cost. */
export function disclosureLine(compactor: CompactorDisclosure): string {
  return (
    `Compaction sends the summarized conversation to ${compactor.provider}:${compactor.modelId}: ` +
    `~${number(compactor.estimatedInputTokens)} input tokens and at most ${number(compactor.maxOutputTokens)} output tokens per compaction.`
  );
}

/** The started event's disclosure, when a compactor model is about to receive the conversation. */
export function compactorDisclosure(event: CompactionEvent): CompactorDisclosure | undefined {
  return event.type === 'context.compaction.started' ? event.compactor : undefined;
}

/** What `forge compact --json` prints. */
export interface CompactionDocument {
  readonly sessionId: string;
  readonly outcome: 'compacted' | 'skipped' | 'failed' | 'limit';
  readonly reason?: string;
  readonly message?: string;
  readonly strategy?: string;
  readonly checkpoint?: {
    readonly id: string;
    readonly hash: string;
    readonly summarizedThrough: number;
    readonly tailStart: number;
    readonly messageCount: number;
  };
  readonly tokensBefore?: number;
  readonly tokensAfter?: number;
  readonly reclaimedTokens?: number;
  /** Always true: compaction never deletes or rewrites the transcript. */
  readonly transcriptKept: true;
  readonly transcriptMessages: number;
  readonly events: readonly CompactionEvent[];
}

export function compactionDocument(sessionId: string, result: SessionCompactResult): CompactionDocument {
  const { outcome } = result;
  const base = {
    sessionId,
    transcriptKept: true as const,
    transcriptMessages: result.transcriptMessages,
    events: result.events,
  };
  if (outcome.kind === 'compacted') {
    const { source } = outcome.built.checkpoint;
    return {
      ...base,
      outcome: 'compacted',
      strategy: outcome.strategy,
      checkpoint: {
        id: outcome.built.id,
        hash: outcome.built.hash,
        summarizedThrough: source.summarizedThrough,
        tailStart: source.tailStart,
        messageCount: source.messageCount,
      },
      tokensBefore: outcome.tokensBefore,
      tokensAfter: outcome.tokensAfter,
      reclaimedTokens: outcome.reclaimedTokens,
    };
  }
  if (outcome.kind === 'limit') return { ...base, outcome: 'limit', message: outcome.message };
  return { ...base, outcome: outcome.kind, reason: outcome.reason, message: outcome.message };
}

/** The text report of a manual compaction. */
export function renderCompaction(sessionId: string, result: SessionCompactResult, style: Style): string {
  const { outcome } = result;
  const lines: string[] = [];
  for (const event of result.events) {
    if (event.type === 'context.checkpoint.coverage') {
      const items = event.items.map((item) => `${item.kind.replace('_', ' ')} #${item.seq} "${item.text}"`).join('; ');
      const outcome = event.outcome === 'repaired' ? 'added them before installing it' : 'refused it';
      lines.push(
        style.yellow(
          `The ${event.strategy} checkpoint missed ${event.missingCount} item(s) of the record (${items}); the coverage check ${outcome}.`,
        ),
      );
    }
    if (event.type === 'context.compaction.failed' && event.fallback === 'forge-state') {
      lines.push(
        style.yellow(
          `The ${event.strategy} strategy failed (${event.reason}: ${event.message}); the deterministic forge-state checkpoint was used instead.`,
        ),
      );
    }
  }
  if (outcome.kind === 'compacted') {
    const { source } = outcome.built.checkpoint;
    const tail =
      source.tailStart < result.transcriptMessages
        ? `messages ${formatMessageRange(source.tailStart, result.transcriptMessages)} stay verbatim`
        : 'no message after it yet';
    lines.push(
      `${style.bold(`Compacted session ${sessionId}`)} with ${outcome.strategy}: messages ${formatMessageRange(0, source.summarizedThrough)} are now checkpoint ${outcome.built.id} ` +
        `(sha256 ${outcome.built.hash.slice(0, 12)}); ${tail}.`,
      `  estimate      ~${number(outcome.tokensBefore)} tokens with every unsummarized turn → ~${number(outcome.tokensAfter)} with the checkpoint and the recent tail (saves ~${number(outcome.reclaimedTokens)})`,
    );
  } else if (outcome.kind === 'skipped') {
    lines.push(`Nothing compacted in session ${sessionId}: ${outcome.message}.`);
  } else {
    lines.push(
      style.red(`Compaction of session ${sessionId} failed: ${outcome.message}`),
      'The previous checkpoint, if any, stays current.',
    );
  }
  lines.push(style.dim(`${TRANSCRIPT_KEPT} (${number(result.transcriptMessages)} messages)`));
  return `${lines.join('\n')}\n`;
}

/** What `forge checkpoint show --json` prints. */
export interface CheckpointDocument {
  readonly sessionId: string;
  readonly checkpoint: {
    readonly id: string;
    readonly hash: string;
    readonly strategy: string;
    readonly summarizedThrough: number;
    readonly sourceHash: string;
    readonly tailStart: number;
    readonly tailHash: string;
    readonly messageCount: number;
    readonly recordedAt: string;
    readonly viewChars: number;
    /** Tokens of the view by the configured model's estimator. */
    readonly viewTokens: number;
    /** Whether the next turn sends it: only mode `compact` sends checkpoints. */
    readonly sentInMode: boolean;
  } | null;
  readonly view: string | null;
  /** Why a stored checkpoint is not used, when it is not. */
  readonly problem?: string;
  readonly transcriptMessages: number;
  /** The context mode of the next turn. */
  readonly mode: ContextMode;
}

/** What `forge checkpoint show` and `/checkpoint` describe: the session's checkpoint as the next turn in `mode` would use it. */
export interface CheckpointSubject {
  readonly sessionId: string;
  readonly resolved: ResolvedCheckpoint | undefined;
  /** The rendered view, facts judged against the workspace as it is now. */
  readonly view: string | undefined;
  /** Tokens of `view` by the configured model's estimator. */
  readonly viewTokens: number;
  readonly transcriptMessages: number;
  readonly mode: ContextMode;
}

/** Tokens a checkpoint view costs in a request, by `model`'s own estimator. */
export async function checkpointViewTokens(model: ModelAdapter, view: string | undefined): Promise<number> {
  if (view === undefined) return 0;
  const estimate = await model.estimateRequestTokens({
    instructions: '',
    checkpoint: view,
    history: [],
    currentRequest: { role: 'user', content: '' },
    continuation: [],
    tools: [],
  });
  return estimate.categories.checkpoint;
}

function sentInMode(subject: CheckpointSubject, active: ActiveCheckpoint): boolean {
  const range = selectViewRange({
    messageCount: subject.transcriptMessages,
    mode: subject.mode,
    checkpoint: { id: active.id, coveredThrough: active.source.tailStart, text: subject.view ?? '' },
  });
  return range.checkpoint !== undefined;
}

export function checkpointDocument(subject: CheckpointSubject): CheckpointDocument {
  const { sessionId, resolved, view, transcriptMessages, mode } = subject;
  if (resolved === undefined || !resolved.ok || view === undefined) {
    return {
      sessionId,
      checkpoint: null,
      view: null,
      transcriptMessages,
      mode,
      ...(resolved !== undefined && !resolved.ok ? { problem: resolved.problem } : {}),
    };
  }
  const { active } = resolved;
  return {
    sessionId,
    checkpoint: {
      id: active.id,
      hash: active.hash,
      strategy: active.strategy,
      ...active.source,
      recordedAt: active.recordedAt,
      viewChars: view.length,
      viewTokens: subject.viewTokens,
      sentInMode: sentInMode(subject, active),
    },
    view,
    transcriptMessages,
    mode,
  };
}

function provenance(subject: CheckpointSubject, active: ActiveCheckpoint, view: string): string[] {
  const { source } = active;
  const { transcriptMessages, mode } = subject;
  const after =
    source.tailStart < transcriptMessages
      ? `messages ${formatMessageRange(source.tailStart, transcriptMessages)} are sent verbatim after it`
      : 'nothing after it yet';
  const use = sentInMode(subject, active)
    ? `sent by the next turn (mode ${mode}); ${after}`
    : `not sent in mode ${mode}: every message ${formatMessageRange(0, transcriptMessages)} is sent verbatim (only mode compact sends checkpoints)`;
  return [
    `  strategy    ${active.strategy}`,
    `  summarizes  messages ${formatMessageRange(0, source.summarizedThrough)} (sha256 ${source.sourceHash.slice(0, 12)})`,
    `  use         ${use}`,
    `  recorded    ${active.recordedAt}`,
    `  view        ${number(view.length)} characters, ${number(subject.viewTokens)} tokens`,
  ];
}

/** The text of `forge checkpoint show` and `/checkpoint`: provenance, then the rendered view. */
export function renderCheckpoint(subject: CheckpointSubject, style: Style): string {
  const { sessionId, resolved, view } = subject;
  if (resolved === undefined) {
    return `Session ${sessionId} has no checkpoint yet: each turn sends every message of its transcript. /compact or forge compact makes one.\n`;
  }
  if (!resolved.ok || view === undefined) {
    return `${style.yellow(`Session ${sessionId} has a stored checkpoint that is not used: ${resolved.ok ? 'it cannot be rendered' : resolved.problem}.`)}\n`;
  }
  const lines = [
    style.bold(`Checkpoint ${resolved.active.id} of session ${sessionId}`),
    ...provenance(subject, resolved.active, view),
    style.dim(TRANSCRIPT_KEPT),
    '',
  ];
  return `${lines.join('\n')}\n${view}${view.endsWith('\n') ? '' : '\n'}`;
}
