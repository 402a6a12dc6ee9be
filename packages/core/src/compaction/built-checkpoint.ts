import { buildForgeStateCheckpoint } from '../checkpoint/build.js';
import { checkpointHash } from '../hashing.js';
import type { CheckpointCaps } from '../checkpoint/caps.js';
import type { CheckpointTranscriptEntry } from '../checkpoint/host-metadata.js';
import type {
  ContextCheckpoint,
  ForgeStateCheckpoint,
  ModelStructuredCheckpoint,
  ProviderNativeCheckpoint,
  StructuredSummary,
} from '../checkpoint/schema.js';
import { renderCheckpointView } from '../checkpoint/view.js';
import type { WorkingSetRenderInput } from '../checkpoint/working-set.js';
import { describeOpaqueState, type OpaqueProviderState } from '../model/opaque-state.js';

/** A checkpoint ready to install: the value, its id and hash, and the view the next request sends. */
export interface BuiltCheckpoint {
  readonly checkpoint: ContextCheckpoint;
  /** `cp_` and the first 16 hex digits of the hash: the same checkpoint always has the same id. */
  readonly id: string;
  /** SHA-256 of the checkpoint in canonical JSON. */
  readonly hash: string;
  readonly view: string;
  /** Provider-native only: the opaque state the adapter replays. Stored beside the checkpoint, never in it. */
  readonly nativeState?: OpaqueProviderState;
}

/** The id events and commands show for a checkpoint with this hash. */
export function checkpointIdOf(hash: string): string {
  return `cp_${hash.slice(0, 16)}`;
}

/**
 * Renders, hashes and names a checkpoint. `viewTokens` is what the model adapter counted for the
 * rendered view (`estimatedTokens`; 0 until the checkpoint has been measured, see
 * {@link withViewTokens}). The view does not show the count, so measuring never changes it.
 * `workingSet`: the current text of the files in hand, which the view shows.
 */
export function finishCheckpoint(
  checkpoint: ContextCheckpoint,
  caps: CheckpointCaps,
  nativeState?: OpaqueProviderState,
  viewTokens = 0,
  workingSet?: WorkingSetRenderInput,
): BuiltCheckpoint {
  const view = renderCheckpointView(checkpoint, caps, undefined, workingSet);
  const sized = { ...checkpoint, estimatedTokens: viewTokens } as ContextCheckpoint;
  const hash = checkpointHash(sized);
  return {
    checkpoint: sized,
    id: checkpointIdOf(hash),
    hash,
    view,
    ...(nativeState === undefined ? {} : { nativeState }),
  };
}

/** `built` with `estimatedTokens` set to the adapter's count of its view (a new hash and id). */
export function withViewTokens(built: BuiltCheckpoint, viewTokens: number): BuiltCheckpoint {
  if (built.checkpoint.estimatedTokens === viewTokens) return built;
  const sized = { ...built.checkpoint, estimatedTokens: viewTokens } as ContextCheckpoint;
  const hash = checkpointHash(sized);
  return { ...built, checkpoint: sized, id: checkpointIdOf(hash), hash };
}

/** The deterministic checkpoint of `[0, tailStart)`, with state reduced from the whole transcript. */
export function buildForgeState(input: {
  readonly transcript: readonly CheckpointTranscriptEntry[];
  readonly tailStart: number;
  readonly redact: (text: string) => string;
  readonly caps: CheckpointCaps;
  /** Which user requests the checkpoint keeps (see `BuildForgeStateCheckpointInput.requests`). */
  readonly requests?: 'latest' | 'all';
}): BuiltCheckpoint {
  const { transcript, tailStart, redact, caps, requests } = input;
  return finishCheckpoint(
    buildForgeStateCheckpoint({ transcript, tailStart, redact, caps, ...(requests === undefined ? {} : { requests }) }),
    caps,
  );
}

/** The parts of a forge-state checkpoint every strategy shares (the working set is forge-state's own). */
function withoutDigest(base: ForgeStateCheckpoint): Omit<ForgeStateCheckpoint, 'digest' | 'strategy' | 'workingSet'> {
  const { digest: _digest, strategy: _strategy, workingSet: _workingSet, ...rest } = base;
  return rest;
}

/** The `model-structured` checkpoint: the deterministic state and memory, the compactor's summary in place of the digest. */
export function withStructuredSummary(
  base: ForgeStateCheckpoint,
  summary: StructuredSummary,
  redact: (text: string) => string,
  caps: CheckpointCaps,
): BuiltCheckpoint {
  const redacted = JSON.parse(JSON.stringify(summary), (_key, value: unknown) =>
    typeof value === 'string' ? redact(value) : value,
  ) as StructuredSummary;
  const checkpoint: ModelStructuredCheckpoint = {
    ...withoutDigest(base),
    strategy: 'model-structured',
    structured: redacted,
  };
  return finishCheckpoint(checkpoint, caps);
}

/** The `provider-native` checkpoint: the deterministic state and memory, and a reference to the provider's item. */
export function withNativeState(
  base: ForgeStateCheckpoint,
  state: OpaqueProviderState,
  caps: CheckpointCaps,
): BuiltCheckpoint {
  const checkpoint: ProviderNativeCheckpoint = {
    ...withoutDigest(base),
    strategy: 'provider-native',
    opaque: describeOpaqueState(state),
  };
  return finishCheckpoint(checkpoint, caps, state);
}
