import type { ContextBudget } from '../budget/budget.js';
import type { Message } from '../messages.js';
import type { ModelAdapter, ModelRequest } from '../model/adapter.js';
import type { OpaqueProviderState } from '../model/opaque-state.js';
import type { CompactionEvent } from './events.js';

/**
 * Why the run asks for room: `preflight` — the request about to be sent is past the compaction
 * threshold (`compactAtTokens`) or over budget; `overflow` — the provider refused it as too long
 * (one recovery per run); `model_request` — the model called `request_compaction` and the next
 * step is a safe boundary; `checkpoint_changed` — the run's first request carries a checkpoint
 * whose text differs from the one the conversation's last request carried, so compacting now
 * throws away no cached history (the cost gate decides).
 */
export type FitReason = 'preflight' | 'overflow' | 'model_request' | 'checkpoint_changed';

export interface FitRequest {
  readonly reason: FitReason;
  /** The step the request is for (1-based). */
  readonly step: number;
  /** The request as it would be sent now. */
  readonly request: ModelRequest;
  /** Its budget, from the model's own estimator. */
  readonly budget: ContextBudget;
  /** The run's model: its estimator, and its native compaction when it offers one. */
  readonly model: ModelAdapter;
  /** Prompt-cache reads the provider reported for the previous step, for the cost gate. */
  readonly cacheReadTokens?: number;
  /** Milliseconds since the conversation's last model request, when known: past the provider's cache lifetime nothing is cached. */
  readonly idleMs?: number;
  /** The checkpoint's text differs from what the conversation's last request carried: nothing after the instructions and tool schemas is cached. */
  readonly checkpointChanged?: boolean;
  readonly signal: AbortSignal;
  /** Emits into the run's event stream (and so its trace). */
  readonly emit: (event: CompactionEvent) => void;
}

/** Why a context manager cannot make the request fit: the recent tail is at its floor and it still does not. */
export type ContextManagerStopReason = 'tail_floor';

export type FitResult =
  /** Nothing changed: not needed, refused by the cost gate, or nothing to compact. The request is sent whole. */
  | { readonly kind: 'unchanged' }
  /**
   * A checkpoint is live (durably stored first): send `checkpoint` and `history` from now on in
   * place of the run's earlier ones. The checkpoint covers stored messages `[0, coveredThrough)`
   * and `history` holds every stored message after them (with replayed native state, all of
   * them): nothing is left out. `sourceHash` identifies what was summarized (for the guard).
   */
  | {
      readonly kind: 'compacted';
      readonly checkpoint: string;
      readonly checkpointId: string;
      readonly coveredThrough: number;
      readonly history: readonly Message[];
      readonly nativeState?: OpaqueProviderState;
      readonly sourceHash: string;
    }
  /** The request cannot be made to fit; the run ends `limit_reached` with this message. */
  | { readonly kind: 'stop'; readonly reason: ContextManagerStopReason; readonly message: string };

/**
 * What `runAgent` calls when the request it is about to send needs room (mode `compact`). A host
 * that stores the conversation (the session layer) implements it: it may summarize completed
 * turns older than the recent tail into a checkpoint, persist it, and hand back the smaller view.
 * It never touches the current request or the run's own tool calls, and it owns the cost gate.
 * `runAgent` wraps every call in the no-progress guard.
 */
export interface ContextManager {
  fit(request: FitRequest): Promise<FitResult>;
  /**
   * Mode `shadow`: called before every step with the request about to be sent (the whole
   * conversation). The host builds and validates a checkpoint wherever mode `compact` would make
   * one, and never installs it; the request is sent unchanged.
   */
  shadowStep?(request: FitRequest): Promise<void>;
}
