import {
  createConservativeEstimator,
  DEFAULT_CONTEXT_POLICY,
  InvalidInputError,
  type CompactionEvent,
  type CompactorDisclosure,
  type ModelAdapter,
} from '@forge/core';
import type { ActiveCheckpoint, ResolvedCheckpoint, SessionCompactResult } from '@forge/persistence';
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
  readonly checkpoint?: { readonly id: string; readonly hash: string; readonly summarizedThrough: number; readonly tailStart: number; readonly messageCount: number };
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
  const base = { sessionId, transcriptKept: true as const, transcriptMessages: result.transcriptMessages, events: result.events };
  if (outcome.kind === 'compacted') {
    const { source } = outcome.built.checkpoint;
    return {
      ...base,
      outcome: 'compacted',
      strategy: outcome.strategy,
      checkpoint: { id: outcome.built.id, hash: outcome.built.hash, summarizedThrough: source.summarizedThrough, tailStart: source.tailStart, messageCount: source.messageCount },
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
    if (event.type === 'context.compaction.failed' && event.fallback === 'forge-state') {
      lines.push(style.yellow(`The ${event.strategy} strategy failed (${event.reason}: ${event.message}); the deterministic forge-state checkpoint was used instead.`));
    }
  }
  if (outcome.kind === 'compacted') {
    const { source } = outcome.built.checkpoint;
    const tail = source.tailStart < result.transcriptMessages ? `#${source.tailStart + 1}–#${result.transcriptMessages} stay verbatim` : 'no message after it yet';
    lines.push(
      `${style.bold(`Compacted session ${sessionId}`)} with ${outcome.strategy}: messages #1–#${source.summarizedThrough} are now checkpoint ${outcome.built.id} ` +
        `(sha256 ${outcome.built.hash.slice(0, 12)}); ${tail}.`,
      `  estimate      ~${number(outcome.tokensBefore)} tokens with every unsummarized turn → ~${number(outcome.tokensAfter)} with the checkpoint and the recent tail (saves ~${number(outcome.reclaimedTokens)})`,
    );
  } else if (outcome.kind === 'skipped') {
    lines.push(`Nothing compacted in session ${sessionId}: ${outcome.message}.`);
  } else {
    lines.push(style.red(`Compaction of session ${sessionId} failed: ${outcome.message}`), 'The previous checkpoint, if any, stays current.');
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
  } | null;
  readonly view: string | null;
  /** Why a stored checkpoint is not used, when it is not. */
  readonly problem?: string;
  readonly transcriptMessages: number;
}

export function checkpointDocument(sessionId: string, resolved: ResolvedCheckpoint | undefined, view: string | undefined, transcriptMessages: number): CheckpointDocument {
  if (resolved === undefined || !resolved.ok || view === undefined) {
    return { sessionId, checkpoint: null, view: null, transcriptMessages, ...(resolved !== undefined && !resolved.ok ? { problem: resolved.problem } : {}) };
  }
  const { active } = resolved;
  return { sessionId, checkpoint: { id: active.id, hash: active.hash, strategy: active.strategy, ...active.source, recordedAt: active.recordedAt, viewChars: view.length }, view, transcriptMessages };
}

function provenance(active: ActiveCheckpoint, view: string, transcriptMessages: number): string[] {
  const { source } = active;
  const tail = source.tailStart < transcriptMessages ? `#${source.tailStart + 1}–#${transcriptMessages} sent verbatim after it (recent part)` : 'nothing after it yet';
  return [
    `  strategy    ${active.strategy}`,
    `  summarizes  #1–#${source.summarizedThrough} (sha256 ${source.sourceHash.slice(0, 12)})`,
    `  tail        ${tail}`,
    `  recorded    ${active.recordedAt}`,
    `  view        ${number(view.length)} characters (~${number(Math.ceil(view.length / 4))} tokens)`,
  ];
}

/** The text of `forge checkpoint show` and `/checkpoint`: provenance, then the rendered view. */
export function renderCheckpoint(sessionId: string, resolved: ResolvedCheckpoint | undefined, view: string | undefined, transcriptMessages: number, style: Style): string {
  if (resolved === undefined) {
    return `Session ${sessionId} has no checkpoint yet: each turn sends the recent part of its transcript. /compact or forge compact makes one.\n`;
  }
  if (!resolved.ok || view === undefined) {
    return `${style.yellow(`Session ${sessionId} has a stored checkpoint that is not used: ${resolved.ok ? 'it cannot be rendered' : resolved.problem}.`)}\n`;
  }
  const lines = [style.bold(`Checkpoint ${resolved.active.id} of session ${sessionId}`), ...provenance(resolved.active, view, transcriptMessages), style.dim(TRANSCRIPT_KEPT), ''];
  return `${lines.join('\n')}\n${view}${view.endsWith('\n') ? '' : '\n'}`;
}

/**
 * A model adapter that only estimates, with the conservative counter: for compacting where the
 * engine's own adapter is not at hand (the REPL, the Codex engine). It never sends anything.
 */
export function estimationOnlyModel(label: string): ModelAdapter {
  const estimator = createConservativeEstimator();
  const colon = label.indexOf(':');
  return {
    specificationVersion: 'forge-model-v1',
    provider: colon === -1 ? 'unknown' : label.slice(0, colon),
    modelId: colon === -1 ? label : label.slice(colon + 1),
    capabilities: {
      contextWindowTokens: DEFAULT_CONTEXT_POLICY.fallbackContextWindowTokens,
      nativeCompaction: 'unsupported',
      continuationProjection: 'adapter-owned',
      estimation: 'conservative-fallback',
      source: 'fallback',
    },
    estimateRequestTokens: async (request) => estimator.estimate(request),
    doStream: () => {
      throw new InvalidInputError({ message: `The estimation-only model for ${label} cannot send requests; this is a bug in Forge.` });
    },
  };
}
