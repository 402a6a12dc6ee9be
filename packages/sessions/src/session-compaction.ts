import {
  resolveContextPolicy,
  type InstructionSnapshot,
  type ToolDefinition,
  type CompactionEvent,
  type ContextPolicy,
  type Message,
  type ModelAdapter,
  type ModelRequest,
  type OpaqueProviderState,
  type TokenEstimate,
} from '@forge/core';
import {
  CHECKPOINT_CAPS,
  DEFAULT_WORKING_SET_BUDGET,
  renderCheckpointView,
  type CheckpointCaps,
  type CheckpointTranscriptEntry,
  type WorkingSetBudget,
} from '@forge/core/checkpoint';
import {
  applyToolOutputProjection,
  chooseProjection,
  compactTranscript,
  OutputSizeCache,
  projectionCandidates,
  protectedToolOutputTokens,
  type BuiltCheckpoint,
  type CompactionGuardLimits,
  type CompactionStrategySetting,
  type CompactTranscriptOptions,
  type CompactTranscriptResult,
  type ContextManager,
  type CurrentCheckpointInfo,
  type FitRequest,
  type SessionModelToolOffer,
} from '@forge/core/compaction';
import { budgetRequest, decideRequest } from '@forge/core/view';
import { factDependencies, hashesOf, installCheckpoint, type ArtifactHashSource } from './checkpoint-install.js';
import { MAIN_LANE, type OpaqueStateStore, type StoredCheckpoint, type SessionWriter } from '@forge/persistence';
import type { SessionView } from './session-view.js';
import { readWorkingSet, reportWorkingSetSent, type FileTextRedaction } from './working-set-input.js';

/** How a session compacts (the CLI fills this from `context.compaction`). */
export interface SessionCompactionOptions {
  /** Default `forge-state`: deterministic, no model call. */
  readonly strategy?: CompactionStrategySetting;
  readonly caps?: CheckpointCaps;
  /** The recent tail is never shrunk below this many tokens to make a request fit (default `TAIL_FLOOR_TOKENS`). */
  readonly tailFloorTokens?: number;
  /** Limits of the in-run no-progress guard. */
  readonly guard?: Partial<CompactionGuardLimits>;
  /**
   * The context-management tools the model is offered in mode `shadow` or `compact` (none in the
   * other modes): `checkpoint_note` over this session's transcript and `request_compaction`.
   * Default: neither.
   */
  readonly modelTools?: Partial<SessionModelToolOffer>;
  /**
   * Which user requests a checkpoint keeps: `latest` (default) or `all`, every request in the
   * user's words and the constraints stated in them, so the session keeps what the user said even
   * when the model notes nothing.
   */
  readonly requests?: 'latest' | 'all';
  /** Where provider-native states are kept across processes; without it they live as long as the session handle. */
  readonly opaqueStates?: OpaqueStateStore;
  /**
   * Bounds of the files a forge-state checkpoint keeps in hand (default `DEFAULT_WORKING_SET_BUDGET`;
   * `maxTokens: 0` turns it off). The files are read only through an `ArtifactHashSource` that can read them.
   */
  readonly workingSet?: WorkingSetBudget | undefined;
}

/** What compaction needs of a session: its transcript, its current checkpoint, and a durable install. */
export interface CompactionSessionPort {
  readonly sessionId: string;
  readonly writer: Pick<SessionWriter, 'recordCheckpoint' | 'messages' | 'messageCount'>;
  transcript(): readonly CheckpointTranscriptEntry[];
  /** The current checkpoint as planning needs it; undefined when there is none (or it is not usable). */
  current(): CurrentCheckpointInfo | undefined;
  readonly nativeStates: Map<string, OpaqueProviderState>;
  /** The session's redaction; `file` names the file a text was read from (for the files in hand). */
  readonly redact: FileTextRedaction;
  /**
   * Mode `shadow`: the checkpoint `compact` would have installed by now (built and validated,
   * never installed), kept by the session in memory so shadow builds where compact would.
   */
  readonly shadow: { checkpoint?: BuiltCheckpoint; readonly projected: Set<string> };
}

/**
 * Makes a built checkpoint current: a provider-native state is kept first (a sidecar no view uses
 * until its checkpoint is current), then the checkpoint is validated and written durably — the
 * commit point. If anything throws, the previous checkpoint stays current.
 */
export async function installSessionCheckpoint(
  port: CompactionSessionPort,
  built: BuiltCheckpoint,
  options: SessionCompactionOptions,
): Promise<void> {
  const identity = { sessionId: port.sessionId, lane: MAIN_LANE };
  if (built.nativeState !== undefined) {
    // Replaces the previous boundary's state, which the new one was chained from.
    await options.opaqueStates?.save(identity, built.nativeState);
    port.nativeStates.set(built.nativeState.itemHash, built.nativeState);
  }
  await installCheckpoint(port.writer, built, options.caps);
  // A new boundary of another strategy: the old state stands for a checkpoint that is no longer current.
  if (built.nativeState === undefined) await options.opaqueStates?.discard(identity);
}

export interface RunCompactionInput {
  readonly port: CompactionSessionPort;
  readonly options: SessionCompactionOptions;
  readonly policy: ContextPolicy;
  readonly model: ModelAdapter;
  readonly estimate?: (request: ModelRequest) => Promise<TokenEstimate>;
  readonly request: ModelRequest;
  readonly before?: TokenEstimate;
  readonly protectedFrom: number;
  readonly trigger: Parameters<typeof compactTranscript>[0]['trigger'];
  readonly mode: 'shadow' | 'compact';
  readonly step: number;
  readonly signal: AbortSignal;
  readonly emit: (event: CompactionEvent) => void;
  readonly focus?: string;
  readonly cacheReadTokens?: number;
  readonly idleMs?: number;
  /** The checkpoint's text changed since the conversation's last request (see `RunSession.checkpointChanged`). */
  readonly checkpointChanged?: boolean;
  /** The checkpoint to build on; by default the session's current one. */
  readonly current?: CurrentCheckpointInfo;
  /** Reads the files a forge-state checkpoint keeps in hand (its `readFiles`); without it there is no working set. */
  readonly artifactHashes?: ArtifactHashSource;
}

/** What `compactTranscript` needs to keep files in hand, when the host can read them and the budget allows. */
function workingSetSetting(input: RunCompactionInput): CompactTranscriptOptions['workingSet'] {
  const budget = input.options.workingSet ?? DEFAULT_WORKING_SET_BUDGET;
  const read = input.artifactHashes?.readFiles;
  if (read === undefined || budget.maxTokens <= 0 || budget.maxFiles <= 0) return undefined;
  return { budget, read, redact: input.port.redact };
}

/** One compaction of the session's stored transcript, installed durably (see `compactTranscript`). */
export function compactSession(input: RunCompactionInput): Promise<CompactTranscriptResult> {
  const { port, options } = input;
  const current = input.current ?? port.current();
  const workingSet = workingSetSetting(input);
  return compactTranscript({
    transcript: port.transcript(),
    protectedFrom: input.protectedFrom,
    ...(current === undefined ? {} : { current }),
    mode: input.mode,
    trigger: input.trigger,
    strategy: options.strategy ?? { kind: 'forge-state' },
    model: input.model,
    ...(input.estimate === undefined ? {} : { estimate: input.estimate }),
    policy: input.policy,
    request: input.request,
    ...(input.before === undefined ? {} : { before: input.before }),
    ...(options.caps === undefined ? {} : { caps: options.caps }),
    redact: port.redact,
    ...(input.focus === undefined ? {} : { focus: input.focus }),
    step: input.step,
    signal: input.signal,
    emit: input.emit,
    ...(input.cacheReadTokens === undefined ? {} : { cacheReadTokens: input.cacheReadTokens }),
    ...(input.idleMs === undefined ? {} : { idleMs: input.idleMs }),
    ...(input.checkpointChanged === true ? { checkpointChanged: true } : {}),
    ...(options.tailFloorTokens === undefined ? {} : { tailFloorTokens: options.tailFloorTokens }),
    ...(options.requests === undefined ? {} : { requests: options.requests }),
    ...(workingSet === undefined ? {} : { workingSet }),
    install: (built) => installSessionCheckpoint(port, built, options),
  });
}

/** The trigger of a compaction the run asked for. */
function triggerOf(
  request: FitRequest,
): 'overflow' | 'model_request' | 'checkpoint_changed' | 'over_budget' | 'threshold' {
  if (request.reason === 'overflow' || request.reason === 'model_request' || request.reason === 'checkpoint_changed')
    return request.reason;
  return request.budget.overBudget ? 'over_budget' : 'threshold';
}

/** A session's context manager, which also says what it last installed. */
export interface SessionContextManager extends ContextManager {
  /** The checkpoint the latest `fit` installed and the request then carried, as rendered; undefined before one. */
  installed(): { readonly id: string; readonly text: string } | undefined;
}

/** The checkpoint text `fit` installs: the built view, re-rendered with fact hashes and working-set files when there are any. */
async function renderInstalledCheckpoint(
  built: BuiltCheckpoint,
  input: {
    readonly port: CompactionSessionPort;
    readonly options: SessionCompactionOptions;
    readonly artifactHashes?: ArtifactHashSource;
  },
): Promise<string> {
  const hashes =
    input.artifactHashes === undefined
      ? undefined
      : await hashesOf(factDependencies(built.checkpoint), input.artifactHashes);
  const files = await readWorkingSet(built.checkpoint, input.artifactHashes, input.port.redact);
  reportWorkingSetSent(input.artifactHashes, built.checkpoint, files);
  return hashes === undefined && files === undefined
    ? built.view
    : renderCheckpointView(built.checkpoint, input.options.caps ?? CHECKPOINT_CAPS, hashes, files);
}

/** The outputs compact would project: the same choice as the run's (superseded, then oldest, the newest protected). */
async function chooseShadowProjection(input: {
  readonly view: readonly Message[];
  readonly projected: ReadonlySet<string>;
  readonly sizes: OutputSizeCache;
  readonly budget: Awaited<ReturnType<typeof budgetRequest>>;
  readonly policy: ContextPolicy;
}): Promise<ReturnType<typeof chooseProjection>> {
  const { view, projected, budget } = input;
  const candidates = projectionCandidates(view).filter((candidate) => !projected.has(candidate.toolCallId));
  const known = await input.sizes.of(
    view,
    candidates.map((candidate) => candidate.messageIndex),
  );
  const excessTokens = budget.estimate.tokens - budget.compactTargetTokens;
  const choice = chooseProjection({
    candidates,
    sizes: known,
    excessTokens,
    protectedTokens: protectedToolOutputTokens(input.policy, budget),
  });
  // As in the run: the protected newest outputs go too when the request would not fit otherwise.
  if (budget.overBudget && budget.estimate.tokens - choice.savedTokens > budget.availableInputTokens)
    return chooseProjection({ candidates, sizes: known, excessTokens, protectedTokens: 0 });
  return choice;
}

/**
 * The session's side of in-run compaction: `runAgent` asks for room (mode `compact`), and this
 * compacts the completed turns before the running one (`protectedFrom`) into a checkpoint,
 * installs it durably and hands back the smaller view: the checkpoint and every message after
 * it. Mode `shadow`: before every step it applies the same rule to the view `compact` would be
 * sending (the shadow checkpoint and the messages after it) and builds and validates a checkpoint
 * wherever `compact` would install one, without installing it.
 */
export function createSessionContextManager(input: {
  readonly port: CompactionSessionPort;
  readonly options: SessionCompactionOptions;
  readonly policy: ContextPolicy;
  readonly protectedFrom: number;
  readonly artifactHashes?: ArtifactHashSource;
}): SessionContextManager {
  const { port, policy, protectedFrom } = input;
  let installed: { readonly id: string; readonly text: string } | undefined;
  const compactWith = (
    request: FitRequest,
    mode: 'shadow' | 'compact',
    current: CurrentCheckpointInfo | undefined,
    modelRequest: ModelRequest,
    before?: TokenEstimate,
  ) =>
    compactSession({
      port,
      options: input.options,
      policy,
      model: request.model,
      request: modelRequest,
      ...(before === undefined ? {} : { before }),
      protectedFrom,
      trigger: triggerOf(request),
      mode,
      step: request.step,
      signal: request.signal,
      emit: request.emit,
      ...(current === undefined ? {} : { current }),
      ...(request.cacheReadTokens === undefined ? {} : { cacheReadTokens: request.cacheReadTokens }),
      ...(request.idleMs === undefined ? {} : { idleMs: request.idleMs }),
      ...(request.checkpointChanged === true ? { checkpointChanged: true } : {}),
      ...(input.artifactHashes === undefined ? {} : { artifactHashes: input.artifactHashes }),
    });
  let sizes: OutputSizeCache | undefined;
  return {
    installed: () => installed,
    async fit(request) {
      const result = await compactWith(request, 'compact', port.current(), request.request, request.budget.estimate);
      if (result.kind === 'limit') return { kind: 'stop', reason: 'tail_floor', message: result.message };
      if (result.kind !== 'compacted' || !result.installed) return { kind: 'unchanged' };
      const { built } = result;
      const checkpoint = await renderInstalledCheckpoint(built, input);
      installed = { id: built.id, text: checkpoint };
      return {
        kind: 'compacted',
        checkpoint,
        checkpointId: built.id,
        coveredThrough: result.tailStart,
        history: result.history,
        ...(built.nativeState === undefined ? {} : { nativeState: built.nativeState }),
        sourceHash: built.checkpoint.source.sourceHash,
      };
    },
    async shadowStep(request) {
      const shadow = port.shadow.checkpoint;
      const { projected } = port.shadow;
      const { checkpoint: _sent, nativeState: _native, ...rest } = request.request;
      const start = shadow?.checkpoint.source.tailStart ?? 0;
      const history = port.writer.messages.slice(start, protectedFrom);
      // What compact would be sending now: its checkpoint, every message after it, the outputs it projected projected.
      const virtualOf = (): ModelRequest => ({
        ...rest,
        ...(shadow === undefined ? {} : { checkpoint: shadow.view }),
        history: applyToolOutputProjection(history, projected),
        continuation: applyToolOutputProjection(rest.continuation, projected),
      });
      const compactPolicy = { ...policy, mode: 'compact' as const };
      let virtual = virtualOf();
      let budget = await budgetRequest(request.model, virtual, compactPolicy);
      const due = decideRequest(budget).kind !== 'send';
      if (!due && request.reason !== 'model_request') return;
      if (due) {
        const view = [...history, rest.currentRequest, ...rest.continuation];
        sizes ??= new OutputSizeCache((messages) => request.model.countMessageTokens(messages));
        const choice = await chooseShadowProjection({ view, projected, sizes, budget, policy });
        for (const id of choice.ids) projected.add(id);
        if (choice.ids.length > 0) {
          virtual = virtualOf();
          budget = await budgetRequest(request.model, virtual, compactPolicy);
          if (budget.estimate.tokens <= budget.compactTargetTokens) return;
        }
      }
      const current =
        shadow === undefined
          ? undefined
          : { summarizedThrough: shadow.checkpoint.source.summarizedThrough, id: shadow.id };
      const result = await compactWith({ ...request, budget }, 'shadow', current, virtual, budget.estimate);
      if (result.kind === 'compacted') port.shadow.checkpoint = result.built;
    },
  };
}

/** Manual compaction of a session between turns (`/compact`, `forge compact`). */
export interface SessionCompactOptions {
  /** The model the next turn would use: its estimator and window (and its native compaction for `provider-native`). */
  readonly model: ModelAdapter;
  readonly instructions: InstructionSnapshot | (() => Promise<InstructionSnapshot>);
  /** Tool definitions the next turn would advertise, for an honest estimate. */
  readonly tools?: readonly ToolDefinition[];
  /** The context policy of the next turn; its `recentTailTokens` is what the compaction keeps verbatim. */
  readonly context?: Partial<ContextPolicy>;
  readonly compaction?: SessionCompactionOptions;
  /** Re-hashes the files checkpoint facts depend on (see `ArtifactHashSource`). */
  readonly artifactHashes?: ArtifactHashSource;
  /** What the user wants the checkpoint to keep in focus; recorded in the events and given to a compactor model. */
  readonly focus?: string;
  /**
   * Why it compacts: `manual` (default) keeps `recentTailTokens` verbatim whatever the request
   * costs; `threshold` and `over_budget` — a host that measured the next request past
   * `compactAtRatio`, or over the window (the Codex engine before a new thread) — size the tail
   * as a run's own compaction does, down to `compactTargetRatio`.
   */
  readonly trigger?: 'manual' | 'threshold' | 'over_budget';
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: CompactionEvent) => void;
}

/** What a manual compaction did. The transcript is never changed; only the current checkpoint can be. */
export interface SessionCompactResult {
  readonly outcome: CompactTranscriptResult;
  readonly events: readonly CompactionEvent[];
  /** Messages in the transcript, all of them kept. */
  readonly transcriptMessages: number;
}

/**
 * Manual compaction between turns: the request is the next turn's, with an empty current request.
 * With `preview`, the same compaction is computed with the deterministic strategy and nothing is
 * installed (`compact --dry-run`): its numbers are the ones the real compaction would give.
 */
export async function compactBetweenTurns(input: {
  readonly port: CompactionSessionPort;
  readonly view: SessionView;
  readonly options: SessionCompactOptions;
  readonly preview?: boolean;
}): Promise<SessionCompactResult> {
  const { port, view, options } = input;
  const preview = input.preview === true;
  const policy = resolveContextPolicy(options.context);
  const instructions = typeof options.instructions === 'function' ? await options.instructions() : options.instructions;
  const events: CompactionEvent[] = [];
  const focus = options.focus?.trim();
  const compaction = options.compaction ?? {};
  const outcome = await compactSession({
    port,
    options: preview ? { ...compaction, strategy: { kind: 'forge-state' } } : compaction,
    policy,
    model: options.model,
    request: {
      instructions: instructions.text,
      ...(view.checkpoint === undefined ? {} : { checkpoint: view.checkpoint.text }),
      history: unsummarizedHistory(port, view, port.writer.messages.length),
      currentRequest: { role: 'user', content: '' },
      continuation: [],
      tools: options.tools ?? [],
      ...(view.nativeState === undefined ? {} : { nativeState: view.nativeState }),
    },
    protectedFrom: port.writer.messages.length,
    trigger: options.trigger ?? 'manual',
    mode: preview ? 'shadow' : 'compact',
    step: 0,
    signal: options.signal ?? new AbortController().signal,
    emit: (event) => {
      events.push(event);
      options.onEvent?.(event);
    },
    ...(focus === undefined || focus === '' ? {} : { focus }),
    ...(options.artifactHashes === undefined ? {} : { artifactHashes: options.artifactHashes }),
  });
  return { outcome, events, transcriptMessages: port.writer.messages.length };
}

/** Brings a provider-native state kept in `store` into `into`, when the current checkpoint refers to one. */
export async function loadNativeState(input: {
  readonly store: OpaqueStateStore | undefined;
  readonly sessionId: string;
  readonly stored: StoredCheckpoint | undefined;
  readonly model: { readonly provider: string; readonly modelId: string };
  readonly into: Map<string, OpaqueProviderState>;
}): Promise<void> {
  const value = input.stored?.checkpoint;
  if (
    input.store === undefined ||
    value === null ||
    typeof value !== 'object' ||
    (value as { readonly strategy?: unknown }).strategy !== 'provider-native'
  )
    return;
  const decision = await input.store.forReplay({ sessionId: input.sessionId, lane: MAIN_LANE }, input.model);
  if (decision.kind === 'replay') input.into.set(decision.state.itemHash, decision.state);
}

/**
 * Every message after what the view's checkpoint stands for, up to `end`, with nothing cut: what
 * would have to be sent to keep all of them without a new checkpoint. With replayed native
 * state, the messages it covers come first (the adapter replaces them).
 */
function unsummarizedHistory(
  port: CompactionSessionPort,
  view: Pick<SessionView, 'nativeState' | 'checkpoint'>,
  end: number,
): Message[] {
  const start = view.nativeState === undefined ? (view.checkpoint?.source.tailStart ?? 0) : 0;
  return port.writer.messages.slice(start, end);
}
