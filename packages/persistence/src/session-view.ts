import {
  buildForgeState,
  type ArtifactHashes,
  CHECKPOINT_CAPS,
  observeArtifactHashes,
  renderCheckpointView,
  selectTail,
  type CheckpointCaps,
  type CheckpointTranscriptEntry,
  type Message,
  type OpaqueProviderState,
} from '@forge/core';
import { renderActiveCheckpoint, resolveStoredCheckpoint, type ActiveCheckpoint, type ResolvedCheckpoint } from './checkpoint-install.js';
import { conservativeMessageTokens } from './conservative-tokens.js';
import type { CheckpointSource } from './records.js';
import type { StoredCheckpoint } from './session-state.js';

/** How the history sent to the model is chosen from the stored transcript. */
export interface SessionViewOptions {
  /** Tokens the retained recent tail may use (`context.recentTailTokens`, 12000 by default in the CLI). */
  readonly recentTailTokens: number;
  /** Cost of one message; defaults to {@link conservativeMessageTokens}, a documented over-estimate. */
  readonly countTokens?: (message: Message) => number;
  /** Caps the checkpoint view is rendered with (default `CHECKPOINT_CAPS`). */
  readonly caps?: CheckpointCaps;
  /**
   * The model the view is for. A provider-native checkpoint is used as such only for the provider
   * and model that made it; for any other model the view is rebuilt deterministically from the
   * canonical transcript.
   */
  readonly model?: { readonly provider: string; readonly modelId: string };
  /**
   * Hashes of artifacts as they are now (see `ArtifactHashSource`): they override what the
   * transcript last observed when facts are judged VALID or SUSPECT.
   */
  readonly currentHashes?: ArtifactHashes;
}

/** The checkpoint in a view and where it came from (what `/checkpoint` and `forge context` show). */
export interface SessionViewCheckpoint {
  readonly id: string;
  readonly hash: string;
  /** `forge-state`, `model-structured`, `provider-native` or `codex-import`. */
  readonly strategy: string;
  readonly source: CheckpointSource;
  readonly recordedAt: string;
  /** The rendered view the model is sent: untrusted memory, below the instructions. */
  readonly text: string;
  /** Set when the stored provider-native checkpoint could not be used for this model and was rebuilt as `forge-state`. */
  readonly rebuiltFrom?: 'provider-native';
}

/** What a turn sends besides instructions and the request: the checkpoint view and the history after it. */
export interface SessionView {
  readonly history: readonly Message[];
  /** Index of the first transcript message sent verbatim (after the checkpoint, when there is one). */
  readonly tailStart: number;
  /** Messages neither summarized by the checkpoint nor sent: between the checkpoint and the recent tail. */
  readonly omittedMessages: number;
  readonly historyTokens: number;
  /** True when tool calls still waiting for results forced the tail over the budget. */
  readonly overBudget: boolean;
  readonly checkpoint?: SessionViewCheckpoint;
  /** Provider-native state the adapter replays in place of the checkpoint text and the messages it covers. */
  readonly nativeState?: OpaqueProviderState;
  /** Why the stored checkpoint was not used, when it was not. */
  readonly checkpointProblem?: string;
}

export interface SelectViewInput extends SessionViewOptions {
  readonly transcript: readonly CheckpointTranscriptEntry[];
  readonly stored: StoredCheckpoint | undefined;
  /** Provider-native states this process holds, by item hash. */
  readonly nativeStates: ReadonlyMap<string, OpaqueProviderState>;
  readonly redact: (text: string) => string;
  /**
   * `stored` already resolved against this transcript (see `resolveStoredCheckpoint`). A session
   * holding its log open can reuse the result: its transcript only grows, so a checkpoint that
   * matched it once keeps matching.
   */
  readonly resolved?: ResolvedCheckpoint;
}

interface ViewBase {
  readonly checkpoint?: SessionViewCheckpoint;
  readonly nativeState?: OpaqueProviderState;
  /** First message after what the checkpoint stands for. */
  readonly after: number;
}

function describe(active: ActiveCheckpoint, text: string): SessionViewCheckpoint {
  return { id: active.id, hash: active.hash, strategy: active.strategy, source: active.source, recordedAt: active.recordedAt, text };
}

function currentHashesAfter(input: SelectViewInput, messageCount: number): Map<string, string | null> {
  const hashes = observeArtifactHashes(input.transcript, messageCount);
  if (input.currentHashes !== undefined) for (const [uri, hash] of input.currentHashes) hashes.set(uri, hash);
  return hashes;
}

function base(input: SelectViewInput, active: ActiveCheckpoint, caps: CheckpointCaps): ViewBase {
  const after = active.source.tailStart;
  if (active.kind !== 'forge' || active.checkpoint.strategy !== 'provider-native') {
    return { checkpoint: describe(active, renderActiveCheckpoint(active, input.transcript, caps, input.currentHashes)), after };
  }
  const { opaque } = active.checkpoint;
  const state = input.nativeStates.get(opaque.itemHash);
  const bound = input.model !== undefined && input.model.provider === opaque.provider && input.model.modelId === opaque.modelId;
  if (bound && state !== undefined) {
    return { checkpoint: describe(active, renderActiveCheckpoint(active, input.transcript, caps, input.currentHashes)), nativeState: state, after };
  }
  const rebuilt = buildForgeState({ transcript: input.transcript.slice(0, active.source.messageCount), tailStart: after, redact: input.redact, caps });
  const text = renderCheckpointView(rebuilt.checkpoint, caps, currentHashesAfter(input, active.source.messageCount));
  return {
    checkpoint: { id: rebuilt.id, hash: rebuilt.hash, strategy: 'forge-state', source: rebuilt.checkpoint.source, recordedAt: active.recordedAt, text, rebuiltFrom: 'provider-native' },
    after,
  };
}

/**
 * The view of a stored session: the current checkpoint's rendered view (when it is valid and
 * still matches the transcript) and the recent tail of the messages after it, cut at a safe
 * boundary to `recentTailTokens`. Pure: the same transcript, checkpoint and options give the same
 * view. With a replayable provider-native state, the history starts with the messages the state
 * covers, for the adapter to replace.
 */
export function selectSessionView(input: SelectViewInput): SessionView {
  const caps = input.caps ?? CHECKPOINT_CAPS;
  const messages = input.transcript.map((entry) => entry.message);
  let problem: string | undefined;
  let viewBase: ViewBase = { after: 0 };
  if (input.stored !== undefined) {
    const resolved = input.resolved ?? resolveStoredCheckpoint(input.stored, input.transcript, caps);
    if (resolved.ok) viewBase = base(input, resolved.active, caps);
    else problem = resolved.problem;
  }
  const after = viewBase.after;
  const selection = selectTail(messages.slice(after), { budgetTokens: input.recentTailTokens, countTokens: input.countTokens ?? conservativeMessageTokens });
  const tailStart = after + selection.tailStart;
  const tail = messages.slice(tailStart);
  return {
    history: viewBase.nativeState === undefined ? tail : [...messages.slice(0, after), ...tail],
    tailStart,
    omittedMessages: tailStart - after,
    historyTokens: selection.tailTokens,
    overBudget: selection.overBudget,
    ...(viewBase.checkpoint === undefined ? {} : { checkpoint: viewBase.checkpoint }),
    ...(viewBase.nativeState === undefined ? {} : { nativeState: viewBase.nativeState }),
    ...(problem === undefined ? {} : { checkpointProblem: problem }),
  };
}
