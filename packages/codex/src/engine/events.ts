import type { EventEnvelope, ForgeEvent } from '@forge/core';
import type { WrapperTokenEstimate } from './wrapper-estimate.js';

/** Token counts Codex reported for one model response or a whole thread. */
export interface CodexTokenBreakdown {
  readonly totalTokens: number;
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
  readonly reasoningOutputTokens: number;
}

/** One `thread/tokenUsage/updated` report: an engine-owned fact, recorded as Codex stated it. */
export interface CodexTokenUsageRecord {
  readonly turnId: string;
  readonly last: CodexTokenBreakdown;
  readonly total: CodexTokenBreakdown;
  /** The window Codex says the model has; Codex decides when to compact against it, not Forge. */
  readonly modelContextWindow: number | null;
}

/** A compaction Codex performed inside its thread (manual or its own automatic one). */
export interface CodexCompactionRecord {
  readonly turnId: string;
  readonly itemId: string;
}

/**
 * Why a turn runs on the thread it runs on. `started` with a `fallback` means Forge meant to
 * continue an earlier thread and could not; the new thread gets Forge's bounded view instead.
 */
export type CodexThreadSelection = {
  readonly how: 'started' | 'continued' | 'resumed';
  readonly fallback?: { readonly reason: CodexThreadFallbackReason; readonly message: string };
};

export type CodexThreadFallbackReason =
  | 'rollout-missing'
  | 'resume-failed'
  | 'codex-version-changed'
  | 'model-changed'
  | 'instructions-changed'
  | 'engine-switched'
  | 'no-thread-recorded';

/** Events only the Codex engine emits, next to the core events it shares with native runs. */
export type CodexOnlyEvent =
  | {
      /**
       * What the wrapper Forge sent costs; Codex's own prompt and tools are not included. (Before
       * it had a name of its own, this was a `context.budgeted` event with `engine: 'codex'`.)
       */
      readonly type: 'codex.context.budgeted';
      readonly estimate: WrapperTokenEstimate;
      readonly historyMessages: number;
      readonly hasCheckpoint: boolean;
      readonly wrapperSha256: string;
      /** `wrapper`: the active view was sent as a text wrapper; `request`: the thread already holds the conversation, only the request was sent. */
      readonly input: 'wrapper' | 'request';
    }
  | ({
      readonly type: 'codex.thread.selected';
      readonly threadId: string;
      readonly model: string | undefined;
    } & CodexThreadSelection)
  | { readonly type: 'codex.usage.recorded'; readonly usage: CodexTokenUsageRecord }
  | { readonly type: 'codex.compaction.completed'; readonly compaction: CodexCompactionRecord };

export type CodexEngineEvent = ForgeEvent | CodexOnlyEvent;

/** The core envelope, carrying a Codex engine event. */
export type CodexEventEnvelope = EventEnvelope<CodexEngineEvent>;

export type CodexEventListener = (envelope: CodexEventEnvelope) => void;
