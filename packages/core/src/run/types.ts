import type { EstimatorAccuracyTracker } from '../budget/accuracy-tracker.js';
import type { ContextPolicy } from '../budget/policy.js';
import type { ErrorSummary, EventListener, RunStatus } from '../events/events.js';
import type { InstructionSnapshot } from '../instructions.js';
import type { Message } from '../messages.js';
import type { ContextManager } from '../compaction/context-manager.js';
import type { RunViewOrigin } from './prepare-request.js';
import type { CompactionGuardLimits } from '../compaction/guard.js';
import type { CompactionRequestChannel } from '../compaction/request-compaction-tool.js';
import type { ToolOutputProjectionOptions } from '../compaction/tool-output-projection.js';
import type { ModelAdapter, Usage } from '../model/adapter.js';
import type { OpaqueProviderState } from '../model/opaque-state.js';
import type { ObserverHub } from '../observers/observer-hub.js';
import type { ApprovalGate, Tool } from '../tools/tool.js';
import type { RunCostSummary } from './run-cost.js';

/**
 * The stored conversation one run continues: what it starts from, where each new message goes,
 * and how room is made when the window fills. A host that persists conversations
 * (`@forge/sessions`) builds one per run; a run given none starts a conversation of its own.
 */
export interface RunSession {
  /**
   * The conversation's id, `[A-Za-z0-9_-]{1,128}`: carried by every event and keying the
   * provider's prompt cache, so every run of the conversation shares one cache prefix. Without
   * it events carry no session id and the cache is keyed by the run id.
   */
  readonly id?: string;
  /** What the model is to see of the conversation before this run's request. */
  readonly history?: SessionHistory;
  /**
   * Called with each message as the run produces it — the user request first — and awaited
   * before the run goes on, so a host can append the transcript durably as it grows instead of
   * losing a run's messages to a crash. A rejection here is a host failure and is thrown from
   * `runAgent`.
   */
  readonly append?: (message: Message) => Promise<void> | void;
  /**
   * Makes room by building and installing a checkpoint (mode `compact`): called before a step
   * whose request is past `compactAtRatio` (or over budget) and still above the target after
   * older tool outputs are projected, after one clean provider overflow, and when the model asked
   * through `request_compaction`. Every call goes through the no-progress guard. In mode `shadow`
   * its `shadowStep` sees every request. Without one, only older tool outputs are projected.
   */
  readonly contextManager?: ContextManager;
  /** What else the host knows about the conversation; each part is optional. */
  readonly capabilities?: SessionCapabilities;
}

/** The stored conversation as the model is to see it: a checkpoint standing for older messages, then the rest verbatim. */
export interface SessionHistory {
  /** Earlier messages of the session, oldest first. Never modified. */
  readonly messages: readonly Message[];
  /**
   * The rendered checkpoint view standing for the session's messages before `messages`. It is
   * untrusted memory: adapters send it after the instructions and before the history.
   */
  readonly checkpoint?: string;
  /** Provider-native compaction state replacing `checkpoint` for the adapter and model that made it. */
  readonly nativeState?: OpaqueProviderState;
  /**
   * Where `messages` start in the host's stored conversation: the checkpoint's id and how many
   * stored messages it covers. Recorded in every `context.budgeted` event (`view`); the run checks
   * that the checkpoint and history together leave no stored message out.
   */
  readonly origin?: RunViewOrigin;
}

/** Optional knowledge a host lends a run about its conversation. */
export interface SessionCapabilities {
  /**
   * Tool calls whose outputs earlier runs of the session already sent projected (mode `compact`):
   * they are sent projected from the first step, so the request prefix stays what it was.
   */
  readonly projectedToolCalls?: Iterable<string>;
  /** Where `request_compaction` leaves its requests; pass the channel the tool was created with. */
  readonly compactionRequests?: CompactionRequestChannel;
  /** What the provider's prompt cache holds of the conversation when the run starts. */
  readonly cache?: SessionCacheState;
  /** Estimate-versus-usage statistics to add to; share one across the session's runs to track a model over it. */
  readonly estimatorAccuracy?: EstimatorAccuracyTracker;
}

/** What the conversation's earlier requests left in the provider's prompt cache. */
export interface SessionCacheState {
  /**
   * When the conversation's last model request before this run was made (milliseconds since the
   * epoch): the cost gate of the first step takes the provider's cache to be cold once its
   * lifetime has passed since then. Later steps use the run's own requests.
   */
  readonly lastRequestAt?: number;
  /**
   * The checkpoint's text differs from the one the conversation's last request carried (a fact it
   * holds went SUSPECT since): the provider's cache holds nothing after the instructions and tool
   * schemas. In mode `compact` the first step then asks the context manager whether compacting
   * now pays (trigger `checkpoint_changed`), and the cost gate prices the cache as it is.
   */
  readonly checkpointChanged?: boolean;
}

export interface RunAgentOptions {
  readonly model: ModelAdapter;
  /** The user's request for this run. */
  readonly request: string;
  /**
   * Instructions for the run. A loader is called exactly once, at the start; the snapshot is then
   * frozen for every step of the run.
   */
  readonly instructions: InstructionSnapshot | (() => Promise<InstructionSnapshot>);
  /** Limits of the no-progress guard; defaults in `DEFAULT_COMPACTION_GUARD_LIMITS`. */
  readonly compactionGuard?: Partial<CompactionGuardLimits>;
  /** Bounds of projected tool outputs (mode `compact`). */
  readonly toolOutputProjection?: ToolOutputProjectionOptions;
  readonly tools?: readonly Tool[];
  /** Decides each tool call. Without one, every call is denied: approval is never implied. */
  readonly approvals?: ApprovalGate;
  /** Model steps allowed in this run (default 25). */
  readonly maxSteps?: number;
  readonly maxOutputTokens?: number;
  /**
   * The context budget policy. Before every model step the request is estimated and
   * `context.budgeted` emitted; past the warning ratio `context.warning`; when the request cannot
   * fit (mandatory context in mode `compact`, the whole request in the other modes), the run ends
   * `limit_reached` without contacting the provider. Missing fields take the defaults of
   * `DEFAULT_CONTEXT_POLICY` (mode `warn`).
   */
  readonly context?: Partial<ContextPolicy>;
  readonly signal?: AbortSignal;
  /** The host's own listener (trace writer, renderer): it gets every event as emitted, unredacted. */
  readonly onEvent?: EventListener;
  /**
   * The conversation this run continues, for a host that keeps one (`@forge/sessions` builds it
   * from the stored transcript). Without it the run starts a conversation of its own: no history,
   * no checkpoint, and nothing is told about its messages until they come back in the result.
   */
  readonly session?: RunSession;
  /**
   * Untrusted subscribers (plugins): they get redacted, frozen copies after `onEvent`, and their
   * failures never reach the run. Build the hub with `createObserverHub` from
   * `@forge/core/observers`, giving it the redactor that knows the session's secrets.
   */
  readonly observers?: ObserverHub;
  /** Must match `[A-Za-z0-9_-]{1,128}`; generated when absent. */
  readonly runId?: string;
  /** Milliseconds since the epoch; injectable for deterministic tests. */
  readonly now?: () => number;
}

export interface RunResult extends RunCostSummary {
  readonly runId: string;
  readonly status: RunStatus;
  /** Messages this run added: the user request, then assistant and tool messages, every tool call paired. */
  readonly messages: readonly Message[];
  /** Text of the last assistant message (may be partial when the run did not complete). */
  readonly text: string;
  readonly steps: number;
  readonly usage: Usage;
  readonly instructionsHash: string;
  readonly error?: ErrorSummary;
}
