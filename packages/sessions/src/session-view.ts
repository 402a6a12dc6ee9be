import type { ContextMode, Message, OpaqueProviderState } from '@forge/core';
import {
  type ArtifactHashes,
  CHECKPOINT_CAPS,
  observeArtifactHashes,
  renderCheckpointView,
  type CheckpointCaps,
  type CheckpointTranscriptEntry,
  type WorkingSetRenderInput,
} from '@forge/core/checkpoint';
import { buildForgeState } from '@forge/core/compaction';
import { selectViewRange, viewHistory, type RequestViewCheckpoint } from '@forge/core/view';
import {
  renderActiveCheckpoint,
  resolveStoredCheckpoint,
  type ActiveCheckpoint,
  type ResolvedCheckpoint,
} from './checkpoint-install.js';
import type { CheckpointSource, StoredCheckpoint } from '@forge/persistence';

/** How the view of a stored session is chosen (the rule itself is core's `selectViewRange`). */
export interface SessionViewOptions {
  /** The context mode of the turn: only `compact` sends the session's checkpoint; the others send every message verbatim. */
  readonly mode: ContextMode;
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
  /** The checkpoint's files in hand as read from disk now (see `readWorkingSet`), shown in its working set. */
  readonly workingSet?: WorkingSetRenderInput;
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

/**
 * What a turn sends besides instructions and the request: the checkpoint view (mode `compact`)
 * and every stored message after it. Messages `[0, tailStart)` are inside the checkpoint,
 * `[tailStart, end)` are sent verbatim; none is left out.
 */
export interface SessionView {
  readonly history: readonly Message[];
  /** Index of the first transcript message sent verbatim (after the checkpoint, when there is one). */
  readonly tailStart: number;
  /** Messages in the stored transcript. */
  readonly end: number;
  /** Messages neither summarized by the checkpoint nor sent: always 0. */
  readonly omitted: 0;
  readonly checkpoint?: SessionViewCheckpoint;
  /** Provider-native state the adapter replays in place of the checkpoint text and the messages it covers. */
  readonly nativeState?: OpaqueProviderState;
  /** Why the stored checkpoint was not used, when it is not valid for this transcript. */
  readonly checkpointProblem?: string;
  /** A valid stored checkpoint that this mode does not send (only `compact` sends checkpoints). */
  readonly unusedCheckpoint?: { readonly id: string; readonly strategy: string; readonly mode: ContextMode };
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
  readonly checkpoint: SessionViewCheckpoint;
  readonly nativeState?: OpaqueProviderState;
}

function describe(active: ActiveCheckpoint, text: string): SessionViewCheckpoint {
  return {
    id: active.id,
    hash: active.hash,
    strategy: active.strategy,
    source: active.source,
    recordedAt: active.recordedAt,
    text,
  };
}

function currentHashesAfter(input: SelectViewInput, messageCount: number): Map<string, string | null> {
  const hashes = observeArtifactHashes(input.transcript, messageCount);
  if (input.currentHashes !== undefined) for (const [uri, hash] of input.currentHashes) hashes.set(uri, hash);
  return hashes;
}

function base(input: SelectViewInput, active: ActiveCheckpoint, caps: CheckpointCaps): ViewBase {
  const after = active.source.tailStart;
  if (active.kind !== 'forge' || active.checkpoint.strategy !== 'provider-native') {
    return {
      checkpoint: describe(
        active,
        renderActiveCheckpoint(active, input.transcript, caps, input.currentHashes, input.workingSet),
      ),
    };
  }
  const { opaque } = active.checkpoint;
  const state = input.nativeStates.get(opaque.itemHash);
  const bound =
    input.model !== undefined && input.model.provider === opaque.provider && input.model.modelId === opaque.modelId;
  if (bound && state !== undefined) {
    return {
      checkpoint: describe(
        active,
        renderActiveCheckpoint(active, input.transcript, caps, input.currentHashes, input.workingSet),
      ),
      nativeState: state,
    };
  }
  const rebuilt = buildForgeState({
    transcript: input.transcript.slice(0, active.source.messageCount),
    tailStart: after,
    redact: input.redact,
    caps,
  });
  const text = renderCheckpointView(rebuilt.checkpoint, caps, currentHashesAfter(input, active.source.messageCount));
  return {
    checkpoint: {
      id: rebuilt.id,
      hash: rebuilt.hash,
      strategy: 'forge-state',
      source: rebuilt.checkpoint.source,
      recordedAt: active.recordedAt,
      text,
      rebuiltFrom: 'provider-native',
    },
  };
}

/** The checkpoint of a session view as core's view rule takes it. */
export function requestViewCheckpoint(
  view: Pick<SessionView, 'checkpoint' | 'nativeState'>,
): RequestViewCheckpoint | undefined {
  if (view.checkpoint === undefined) return undefined;
  const { id, source, text } = view.checkpoint;
  return {
    id,
    coveredThrough: source.tailStart,
    text,
    ...(view.nativeState === undefined ? {} : { nativeState: view.nativeState }),
  };
}

/**
 * The view of a stored session, by core's rule (`selectViewRange`): in mode `compact`, the current
 * checkpoint's rendered view (when it is valid and still matches the transcript) and every message
 * after it; in the other modes, every message and no checkpoint. With a replayable
 * provider-native state, the history starts with the messages the state covers, for the adapter
 * to replace. Pure: the same transcript, checkpoint and options give the same view.
 */
export function selectSessionView(input: SelectViewInput): SessionView {
  const caps = input.caps ?? CHECKPOINT_CAPS;
  const messages = input.transcript.map((entry) => entry.message);
  let problem: string | undefined;
  let viewBase: ViewBase | undefined;
  let unused: SessionView['unusedCheckpoint'];
  if (input.stored !== undefined) {
    const resolved = input.resolved ?? resolveStoredCheckpoint(input.stored, input.transcript, caps);
    if (!resolved.ok) problem = resolved.problem;
    else if (input.mode === 'compact') viewBase = base(input, resolved.active, caps);
    else unused = { id: resolved.active.id, strategy: resolved.active.strategy, mode: input.mode };
  }
  const checkpoint = viewBase === undefined ? undefined : requestViewCheckpoint(viewBase);
  const range = selectViewRange({
    messageCount: messages.length,
    mode: input.mode,
    ...(checkpoint === undefined ? {} : { checkpoint }),
  });
  return {
    history: viewHistory(range, messages),
    tailStart: range.tailStart,
    end: range.end,
    omitted: range.omitted,
    ...(viewBase === undefined ? {} : { checkpoint: viewBase.checkpoint }),
    ...(viewBase?.nativeState === undefined ? {} : { nativeState: viewBase.nativeState }),
    ...(problem === undefined ? {} : { checkpointProblem: problem }),
    ...(unused === undefined ? {} : { unusedCheckpoint: unused }),
  };
}
