import {
  assertSafeId,
  createId,
  emptyUsage,
  InvalidInputError,
  resolveContextPolicy,
  runAgent,
  sha256Hex,
  summarizeError,
  type ContextPolicy,
  type RunSession,
  type Message,
  type OpaqueProviderState,
  type RunResult,
} from '@forge/core';
import {
  buildForgeStateCheckpoint,
  checkCoverage,
  CHECKPOINT_CAPS,
  validateCheckpoint,
  withRunIds,
  type CheckpointCaps,
  type CheckpointTranscriptEntry,
  type CoverageItem,
  type WorkingSetRenderInput,
} from '@forge/core/checkpoint';
import {
  CompactionRequestChannel,
  createSessionModelTools,
  type BuiltCheckpoint,
  type ContextManager,
} from '@forge/core/compaction';
import { createRedactor, type Redactor } from '@forge/core/redaction';
import {
  createSession,
  discardSession,
  openSession,
  closeDanglingToolCalls,
  repairInterruptedSession,
  createTraceWriter,
  type CheckpointSent,
  type EngineEventEnvelope,
  type SessionRepairWarning,
  type LoadedSession,
  type SessionTranscript,
  type StoredCheckpoint,
  type SessionWriter,
  type TraceWriter,
} from '@forge/persistence';
import {
  currentArtifactHashesFor,
  installCheckpoint,
  resolveStoredCheckpoint,
  resolveWindowedCheckpoint,
  type ArtifactHashSource,
  type ResolvedCheckpoint,
} from './checkpoint-install.js';
import {
  compactBetweenTurns,
  createSessionContextManager,
  loadNativeState,
  type CompactionSessionPort,
  type SessionCompactionOptions,
  type SessionCompactOptions,
  type SessionCompactResult,
} from './session-compaction.js';
import type {
  EngineTurnOutcome,
  OpenSessionHandleOptions,
  SessionEngineInput,
  SessionEngineTurnOptions,
  SessionTurnOptions,
  SessionTurnResult,
  SessionTurnWarning,
} from './session-turn-types.js';
import { discardRefusedState, NativeReplayWatch } from './native-replay.js';
import { historyWithStaleReads } from './stale-history.js';
import { selectSessionView, type SessionView, type SessionViewOptions } from './session-view.js';
import { reportWorkingSetSent, workingSetFor } from './working-set-input.js';
import { loadedEntries, viewTranscript } from './windowed-transcript.js';

export type {
  EngineTurnOutcome,
  OpenSessionHandleOptions,
  SessionEngineInput,
  SessionEngineTurnOptions,
  SessionTurnOptions,
  SessionTurnResult,
  SessionTurnWarning,
} from './session-turn-types.js';
export type { SessionView, SessionViewCheckpoint, SessionViewOptions } from './session-view.js';

/**
 * A session held open for writing (its lock is held until `close`), continued one turn at a
 * time. The REPL keeps one for its whole life; `runSessionTurn` uses one for a single turn.
 */
export class SessionHandle {
  readonly home: string;
  /** True when this handle created the session rather than opening an existing one. */
  readonly created: boolean;
  /** What opening noticed and repaired (torn tail, stale lock, an interrupted previous run). */
  readonly openWarnings: readonly SessionTurnWarning[];
  private readonly writer: SessionWriter;
  private readonly redactor: Redactor;
  private readonly now: () => number;
  private readonly newRunId: () => string;
  private running = false;
  private closed = false;
  /** Provider-native states made or loaded in this process, by item hash. */
  private readonly nativeStates = new Map<string, OpaqueProviderState>();
  /** Mode `shadow`: the checkpoint compact would be using by now, never installed (kept for the life of the handle). */
  private readonly shadow: { checkpoint?: BuiltCheckpoint; readonly projected: Set<string> } = { projected: new Set() };
  /** Mode `compact`: tool calls whose outputs turns of this handle sent projected (runs that ended record theirs too, for other processes). */
  private readonly projectedToolCalls = new Set<string>();
  private resolvedCheckpoint:
    | {
        readonly stored: StoredCheckpoint;
        readonly caps: CheckpointCaps | undefined;
        readonly result: ResolvedCheckpoint;
      }
    | undefined;

  constructor(parts: {
    readonly home: string;
    readonly writer: SessionWriter;
    readonly created: boolean;
    readonly redactor: Redactor;
    readonly now: () => number;
    readonly newRunId?: () => string;
    readonly warnings: readonly SessionTurnWarning[];
  }) {
    this.home = parts.home;
    this.writer = parts.writer;
    this.created = parts.created;
    this.redactor = parts.redactor;
    this.now = parts.now;
    this.newRunId = parts.newRunId ?? (() => createId('run', this.now()));
    this.openWarnings = parts.warnings;
  }

  get id(): string {
    return this.writer.id;
  }

  /** The canonical transcript as stored (redacted), oldest first. */
  get messages(): readonly Message[] {
    return this.writer.messages;
  }

  /** The whole session (a handle opened as a window reads the rest of its log first). */
  transcript(): SessionTranscript {
    return this.writer.transcript();
  }

  /** What is in memory: the whole session, or for a handle opened as a window, its checkpoint's window (see `SessionWriter.loaded`). */
  get loaded(): LoadedSession {
    return this.writer.loaded;
  }

  /** The transcript with the run that added each message, as checkpoints read it. */
  entries(): CheckpointTranscriptEntry[] {
    return withRunIds(this.writer.messages, this.writer.transcript().runs);
  }

  /**
   * The stored current checkpoint, resolved against the transcript; undefined when the session has
   * none. The result is kept until another checkpoint is stored: the transcript only grows, so a
   * checkpoint that matched it keeps matching, and long sessions do not hash their history every turn.
   */
  currentCheckpoint(caps?: CheckpointCaps): ResolvedCheckpoint | undefined {
    const stored = this.writer.checkpoint;
    if (stored === undefined) return undefined;
    if (this.resolvedCheckpoint?.stored === stored && this.resolvedCheckpoint.caps === caps)
      return this.resolvedCheckpoint.result;
    // A window that does not hold what the checkpoint keeps is no window for it: the whole log decides.
    const windowed = this.writer.windowed ? resolveWindowedCheckpoint(stored, this.writer.loaded, caps) : undefined;
    const result = windowed?.ok === true ? windowed : resolveStoredCheckpoint(stored, this.entries(), caps);
    this.resolvedCheckpoint = { stored, caps, result };
    return result;
  }

  /**
   * The current checkpoint's files in hand as `source` reads them now, redacted as this session
   * redacts: what a render of its working set shows (`/checkpoint`, `/context`). Undefined when
   * the checkpoint has no working set or `source` cannot read files.
   */
  readWorkingSet(
    source: ArtifactHashSource | undefined,
    caps?: CheckpointCaps,
  ): Promise<WorkingSetRenderInput | undefined> {
    return workingSetFor(this.currentCheckpoint(caps), source, this.redactFileText);
  }

  /**
   * What the next turn would send: in mode `compact`, the current checkpoint's view and every
   * message after it; in the other modes, every message. Pure: the same transcript, checkpoint and
   * options give the same view.
   */
  selectView(options: SessionViewOptions): SessionView {
    const resolved = this.currentCheckpoint(options.caps);
    return selectSessionView({
      ...options,
      transcript: viewTranscript(this.writer, options.mode, () => this.entries()),
      stored: this.writer.checkpoint,
      ...(resolved === undefined ? {} : { resolved }),
      nativeStates: this.nativeStates,
      redact: (text) => this.redactor.redact(text),
    });
  }

  /**
   * Compacts the session now (manual `/compact`): the completed turns older than the recent tail
   * become a checkpoint, validated and stored durably before it is current. No cost gate (the
   * request is explicit) and no confirmation: the transcript is never changed, only what later
   * turns send in mode `compact`. Works in every mode; the result says what happened and why.
   * With `preview`, the same compaction is computed and nothing is stored (`/compact --dry-run`).
   */
  async compact(options: SessionCompactOptions & { readonly preview?: boolean }): Promise<SessionCompactResult> {
    this.checkOpen();
    this.running = true;
    try {
      const compaction = options.compaction ?? {};
      await this.loadNativeState(compaction, options.model);
      const resolved = this.currentCheckpoint(compaction.caps);
      const currentHashes = await currentArtifactHashesFor(resolved, options.artifactHashes);
      const workingSet = await workingSetFor(resolved, options.artifactHashes, this.redactFileText);
      const view = this.selectView({
        mode: 'compact',
        model: options.model,
        ...(compaction.caps === undefined ? {} : { caps: compaction.caps }),
        ...(currentHashes === undefined ? {} : { currentHashes }),
        ...(workingSet === undefined ? {} : { workingSet }),
      });
      return await compactBetweenTurns({
        port: this.compactionPort(),
        view,
        options,
        ...(options.preview === true ? { preview: true } : {}),
      });
    } finally {
      this.running = false;
    }
  }

  /**
   * Runs one turn. What is sent follows the context mode (core's `selectRequestView` rule): in
   * mode `compact` the current checkpoint's view and every message after it, compacted further
   * only past `compactAtRatio`; in the other modes every stored message. Each message is appended
   * durably as the run produces it; the run's start and end are recorded; its events go to
   * `runs/<run-id>.jsonl` (redacted) and to `onEvent`. Model and tool failures end the run with a
   * status, as in `runAgent`; a rejection means the host failed (for example a disk write).
   */
  async runTurn(options: SessionTurnOptions): Promise<SessionTurnResult> {
    const { caps, onEvent, instructions, compaction = {}, artifactHashes, ...runOptions } = options;
    const policy = resolveContextPolicy(runOptions.context);
    const turnCaps = caps ?? compaction.caps;
    this.beginTurn();
    try {
      await this.loadNativeState(compaction, runOptions.model);
      const started = await this.startTurn({
        mode: policy.mode,
        ...(turnCaps === undefined ? {} : { caps: turnCaps }),
        instructions,
        ...(artifactHashes === undefined ? {} : { artifactHashes }),
        model: { provider: runOptions.model.provider, modelId: runOptions.model.modelId },
      });
      const native = { policy, compaction, artifactHashes, runOptions, onEvent };
      return await this.settle(started, this.runNative(started.input, native));
    } finally {
      this.running = false;
    }
  }

  /** The turn on Forge's own loop: `runAgent` over the view `startTurn` chose, compacting as the mode says. */
  private async runNative(input: SessionEngineInput, turn: NativeTurn): Promise<EngineTurnOutcome> {
    const { policy, compaction, artifactHashes, runOptions } = turn;
    const automatic = policy.mode === 'shadow' || policy.mode === 'compact';
    const history =
      policy.mode === 'compact'
        ? await historyWithStaleReads({
            history: input.history,
            view: input.view,
            entries: () => (this.writer.windowed ? loadedEntries(this.writer.loaded) : this.entries()),
            source: artifactHashes,
          })
        : input.history;
    const offer = {
      checkpointNote: automatic && compaction.modelTools?.checkpointNote === true,
      requestCompaction: automatic && compaction.modelTools?.requestCompaction === true,
    };
    const channel = new CompactionRequestChannel();
    const modelTools = createSessionModelTools(offer, {
      transcript: () => this.entries(),
      channel,
      ...(compaction.caps === undefined ? {} : { caps: compaction.caps }),
    });
    const manager = automatic
      ? createSessionContextManager({
          port: this.compactionPort(),
          options: compaction,
          policy,
          protectedFrom: this.writer.messageCount,
          ...(artifactHashes === undefined ? {} : { artifactHashes }),
        })
      : undefined;
    const replay = new NativeReplayWatch(input.nativeState !== undefined);
    const result = await runAgent({
      ...runOptions,
      instructions: input.instructions,
      runId: input.runId,
      session: this.runSession(input, {
        policy,
        history,
        manager,
        channel: offer.requestCompaction ? channel : undefined,
      }),
      context: policy,
      ...(modelTools.length === 0 ? {} : { tools: [...(runOptions.tools ?? []), ...modelTools] }),
      ...(compaction.guard === undefined ? {} : { compactionGuard: compaction.guard }),
      onEvent: (envelope) => {
        const { event } = envelope;
        if (event.type === 'context.compaction.completed')
          for (const id of event.projectedToolCallIds ?? []) this.projectedToolCalls.add(id);
        replay.observe(event);
        input.onEvent(envelope);
        turn.onEvent?.(envelope);
      },
    });
    if (replay.refused)
      await discardRefusedState({
        store: compaction.opaqueStates,
        sessionId: this.id,
        stored: this.writer.checkpoint,
        loaded: this.nativeStates,
      });
    const sent = manager?.installed() ?? startingCheckpoint(input);
    if (policy.mode !== 'compact' || result.steps === 0 || sent === undefined) return { result };
    return { result, checkpointSent: { id: sent.id, textSha256: sha256Hex(sent.text) } };
  }

  /** What `runAgent` is told about the session for one turn (the `session` port). */
  private runSession(
    input: SessionEngineInput,
    turn: {
      readonly policy: ContextPolicy;
      readonly history: readonly Message[];
      readonly manager: ContextManager | undefined;
      readonly channel: CompactionRequestChannel | undefined;
    },
  ): RunSession {
    const { policy, history, manager, channel } = turn;
    const { view } = input;
    // The same checkpoint rendered differently (a fact went SUSPECT); a new one was paid for when it was made.
    const last = this.lastCheckpointSent();
    const checkpointChanged =
      policy.mode === 'compact' &&
      input.nativeState === undefined &&
      input.checkpoint !== undefined &&
      last !== undefined &&
      last.id === view.checkpoint?.id &&
      last.textSha256 !== sha256Hex(input.checkpoint);
    const lastRequestAt = this.lastRunEndedAt();
    return {
      id: input.sessionId,
      history: {
        messages: history,
        ...(input.checkpoint === undefined ? {} : { checkpoint: input.checkpoint }),
        ...(input.nativeState === undefined ? {} : { nativeState: input.nativeState }),
        origin: {
          coveredMessages: view.tailStart,
          ...(view.checkpoint === undefined ? {} : { checkpointId: view.checkpoint.id }),
        },
      },
      append: input.onMessage,
      ...(manager === undefined ? {} : { contextManager: manager }),
      capabilities: {
        ...(policy.mode === 'compact' ? this.projectedSoFar() : {}),
        ...(channel === undefined ? {} : { compactionRequests: channel }),
        cache: {
          ...(lastRequestAt === undefined ? {} : { lastRequestAt }),
          ...(checkpointChanged ? { checkpointChanged: true } : {}),
        },
      },
    };
  }

  /**
   * Tool calls whose outputs earlier turns sent projected, by this handle or by any process whose
   * run recorded its end: later turns keep sending them so, and the provider's cached prefix holds.
   */
  private projectedSoFar(): { readonly projectedToolCalls?: readonly string[] } {
    const ids = new Set(this.writer.loaded.runs.flatMap((run) => run.projectedToolCalls ?? []));
    for (const id of this.projectedToolCalls) ids.add(id);
    return ids.size === 0 ? {} : { projectedToolCalls: [...ids] };
  }

  /** The checkpoint the latest run that sent one carried (recorded with its end, so another process sees it too). */
  private lastCheckpointSent(): CheckpointSent | undefined {
    return this.writer.loaded.runs.map((run) => run.checkpointSent).findLast((sent) => sent !== undefined);
  }

  /** When the latest run that recorded its end ended (milliseconds since the epoch): about when its last request was made. */
  private lastRunEndedAt(): number | undefined {
    const at = this.writer.loaded.lastRunEndedAt;
    const ended = at === undefined ? Number.NaN : Date.parse(at);
    return Number.isFinite(ended) ? ended : undefined;
  }

  /**
   * Runs one turn on another engine with exactly the bookkeeping of {@link runTurn}: the engine
   * gets the recent view as history and a run id, its messages go to the transcript through
   * `onMessage`, its events (core or its own) to the trace and `onEvent`, and the run's start and
   * end are recorded. A rejection of `run` is recorded as a failed run and rethrown.
   */
  async runEngineTurn(options: SessionEngineTurnOptions): Promise<SessionTurnResult> {
    this.beginTurn();
    try {
      const started = await this.startTurn(options);
      return await this.settle(started, options.run(started.input));
    } finally {
      this.running = false;
    }
  }

  /**
   * Makes a `forge-state` checkpoint of the whole transcript current: every user request (the
   * latest marked as such) and the constraints stated in them, the host-observed state and a
   * digest. An engine that keeps its own context (the Codex engine) calls it after each turn, so
   * another engine continuing the session starts from everything that happened. Validated, then
   * written durably, and only then current; nothing is written when the current checkpoint
   * already covers every message. It passes the same coverage check as a compaction: what it
   * misses of the record is added before it is installed, and returned (empty when nothing was;
   * by construction every miss fits the caps, so it is never refused).
   */
  async checkpointWholeTranscript(caps?: CheckpointCaps): Promise<readonly CoverageItem[]> {
    this.checkOpen();
    const entries = this.entries();
    if (entries.length === 0 || this.writer.checkpoint?.source.messageCount === entries.length) return [];
    const redact = (text: string): string => this.redactor.redact(text);
    const built = buildForgeStateCheckpoint({
      transcript: entries,
      tailStart: entries.length,
      redact,
      requests: 'all',
      ...(caps === undefined ? {} : { caps }),
    });
    const { missing, repair } = checkCoverage(built, entries, redact, caps ?? CHECKPOINT_CAPS);
    const repaired =
      repair !== null &&
      repair.unrepaired.length === 0 &&
      validateCheckpoint(repair.checkpoint, entries.length, caps).ok
        ? repair.checkpoint
        : built;
    await installCheckpoint(this.writer, { checkpoint: repaired }, caps);
    return missing;
  }

  /**
   * Releases the lock. With `discardIfEmpty`, a session this handle created that never received
   * a message or run is removed instead of being left as an empty entry in the listing.
   */
  async close(options: { readonly discardIfEmpty?: boolean } = {}): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const empty =
      this.writer.messageCount === 0 && this.writer.loaded.runs.length === 0 && this.writer.checkpoint === undefined;
    if (options.discardIfEmpty !== true || !this.created || !empty) {
      await this.writer.close();
      return;
    }
    await discardSession(this.home, this.writer);
  }

  private checkOpen(): void {
    if (this.closed)
      throw new InvalidInputError({ message: `Session ${this.id} is closed; open it again to continue it.` });
    if (this.running)
      throw new InvalidInputError({
        message: `Session ${this.id} is already running a turn or a compaction; wait for it to end.`,
      });
  }

  /** The session's redaction for the text of files in hand (a key file's name makes all of its base64 secret). */
  private readonly redactFileText = (text: string, context?: { readonly file?: string }): string =>
    this.redactor.redact(text, context);

  private compactionPort(): CompactionSessionPort {
    return {
      sessionId: this.id,
      writer: this.writer,
      transcript: () => this.entries(),
      current: () => {
        const resolved = this.currentCheckpoint();
        return resolved?.ok === true
          ? { summarizedThrough: resolved.active.source.summarizedThrough, id: resolved.active.id }
          : undefined;
      },
      nativeStates: this.nativeStates,
      redact: this.redactFileText,
      shadow: this.shadow,
    };
  }

  private async loadNativeState(
    compaction: SessionCompactionOptions,
    model: { readonly provider: string; readonly modelId: string },
  ): Promise<void> {
    await loadNativeState({
      store: compaction.opaqueStates,
      sessionId: this.id,
      stored: this.writer.checkpoint,
      model,
      into: this.nativeStates,
    });
  }

  private beginTurn(): void {
    this.checkOpen();
    this.running = true;
  }

  /**
   * A turn's start, whatever engine runs it: the view its mode sends (with the working set and the
   * current hashes of the files its checkpoint names), the frozen instructions, a run id, the
   * trace, and the run's start in the log. What the engine gets is `input`.
   */
  private async startTurn(options: Omit<SessionEngineTurnOptions, 'run'>): Promise<StartedTurn> {
    const { caps, onEvent, instructions, model } = options;
    const mode = options.mode ?? 'compact';
    const resolved = mode === 'compact' ? this.currentCheckpoint(caps) : undefined;
    const currentHashes = await currentArtifactHashesFor(resolved, options.artifactHashes);
    const workingSet = await workingSetFor(resolved, options.artifactHashes, this.redactFileText);
    const view = this.selectView({
      mode,
      model,
      ...(caps === undefined ? {} : { caps }),
      ...(currentHashes === undefined ? {} : { currentHashes }),
      ...(workingSet === undefined ? {} : { workingSet }),
    });
    const sentForge =
      view.checkpoint !== undefined &&
      view.checkpoint.rebuiltFrom === undefined &&
      resolved?.ok === true &&
      resolved.active.kind === 'forge'
        ? resolved.active.checkpoint
        : undefined;
    reportWorkingSetSent(options.artifactHashes, sentForge, workingSet);
    const snapshot = typeof instructions === 'function' ? await instructions() : instructions;
    const runId = assertSafeId(this.newRunId(), 'run id');
    const trace = await createTraceWriter(this.home, runId, { redactor: this.redactor });
    const projectedToolCalls: string[] = [];
    const started = { runId, instructionsHash: snapshot.hash, trace, view, projectedToolCalls };
    try {
      await this.writer.recordRunStart({
        runId,
        instructionsHash: snapshot.hash,
        model: { provider: model.provider, modelId: model.modelId },
      });
    } catch (error) {
      await this.failTurn(started, error);
      throw error;
    }
    const input: SessionEngineInput = {
      instructions: snapshot,
      history: view.history,
      ...(view.checkpoint === undefined ? {} : { checkpoint: view.checkpoint.text }),
      ...(view.nativeState === undefined ? {} : { nativeState: view.nativeState }),
      view,
      runId,
      sessionId: this.id,
      onMessage: async (message) => {
        await this.writer.appendMessages([message], { runId });
      },
      onEvent: (envelope) => {
        projectedToolCalls.push(...projectedIdsOf(envelope.event));
        trace.listener(envelope);
        onEvent?.(envelope);
      },
    };
    return { ...started, input };
  }

  /** A turn's end: the engine's outcome recorded with the run's end and the trace closed; a host failure recorded as a failed run. */
  private async settle(started: StartedTurn, running: Promise<EngineTurnOutcome>): Promise<SessionTurnResult> {
    const { runId, trace, view, projectedToolCalls } = started;
    let result: RunResult;
    try {
      const outcome = await running;
      result = outcome.result;
      await this.writer.recordRunEnd({
        ...result,
        ...(outcome.engineFacts === undefined ? {} : { engine: outcome.engineFacts }),
        ...(outcome.checkpointSent === undefined ? {} : { checkpointSent: outcome.checkpointSent }),
        ...(projectedToolCalls.length === 0 ? {} : { projectedToolCalls }),
      });
    } catch (error) {
      await this.failTurn(started, error);
      throw error;
    }
    const warnings: SessionTurnWarning[] = [];
    const traceWarning = await closeTrace(trace);
    if (traceWarning !== undefined) warnings.push(traceWarning);
    const { history: _history, nativeState: _nativeState, ...viewFacts } = view;
    return { result, sessionId: this.id, runId, tracePath: trace.file, view: viewFacts, warnings };
  }

  private async failTurn(started: Pick<StartedTurn, 'runId' | 'instructionsHash' | 'trace'>, error: unknown) {
    await this.recordHostFailure(started.runId, started.instructionsHash, error);
    await started.trace.close().catch(() => undefined);
  }

  /** Best effort after the host failed mid-run: pair dangling calls and record the failure. */
  private async recordHostFailure(runId: string, instructionsHash: string, error: unknown): Promise<void> {
    try {
      await closeDanglingToolCalls(this.writer, runId);
      await this.writer.recordRunEnd({
        runId,
        status: 'failed',
        usage: emptyUsage,
        instructionsHash,
        error: summarizeError(error, 'host_failure'),
      });
    } catch {
      // The writer itself failed; the next open repairs the session from what reached the disk.
    }
  }
}

/** A turn between its start and its end: see `SessionHandle.startTurn`. */
interface StartedTurn {
  readonly runId: string;
  readonly instructionsHash: string;
  readonly trace: TraceWriter;
  readonly view: SessionView;
  /** Tool calls whose outputs the run's events say were sent projected. */
  readonly projectedToolCalls: string[];
  readonly input: SessionEngineInput;
}

/** What a turn on Forge's own loop needs besides the engine input. */
interface NativeTurn {
  readonly policy: ContextPolicy;
  readonly compaction: SessionCompactionOptions;
  readonly artifactHashes: ArtifactHashSource | undefined;
  readonly runOptions: Omit<SessionTurnOptions, 'caps' | 'onEvent' | 'instructions' | 'compaction' | 'artifactHashes'>;
  readonly onEvent: SessionTurnOptions['onEvent'];
}

/** The checkpoint the view started with, as sent: what a run that did not compact carried. */
function startingCheckpoint(input: SessionEngineInput): { readonly id: string; readonly text: string } | undefined {
  return input.view.checkpoint === undefined || input.checkpoint === undefined
    ? undefined
    : { id: input.view.checkpoint.id, text: input.checkpoint };
}

async function closeTrace(trace: TraceWriter): Promise<SessionTurnWarning | undefined> {
  try {
    await trace.close();
    return undefined;
  } catch (error) {
    return { code: 'trace_failed', message: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Opens a session for writing and keeps it open: continues `sessionId`, or creates a new session
 * for `workspaceRoot`. A session left behind by a crash is repaired first, by appending (see
 * `repairInterruptedSession`). Throws `SessionLockedError` when another forge writes the session
 * and `SessionNotFoundError` when there is no such session.
 */
export async function openSessionHandle(options: OpenSessionHandleOptions): Promise<SessionHandle> {
  const now = options.now ?? Date.now;
  const redactor = options.redactor ?? createRedactor();
  const writerOptions = { redactor, now };
  const runIds = options.newRunId === undefined ? {} : { newRunId: options.newRunId };
  if (options.sessionId === undefined) {
    const writer = await createSession(options.home, { ...writerOptions, workspaceRoot: options.workspaceRoot });
    return new SessionHandle({
      home: options.home,
      writer,
      created: true,
      redactor,
      now,
      ...runIds,
      warnings: writer.openWarnings,
    });
  }
  const writer = await openSession(options.home, options.sessionId, {
    ...writerOptions,
    ...(options.window === true ? { window: true } : {}),
  });
  let repairs: SessionRepairWarning[];
  try {
    repairs = await repairInterruptedSession(writer);
  } catch (error) {
    await writer.close();
    throw error;
  }
  return new SessionHandle({
    home: options.home,
    writer,
    created: false,
    redactor,
    now,
    ...runIds,
    warnings: [...writer.openWarnings, ...repairs],
  });
}

/**
 * Continues a session (or starts one) with one `runAgent` turn and closes it again: opens and
 * locks it, repairs an interrupted previous run, sends the recent view of the stored transcript
 * as history, appends each message durably as it is produced, records the run's start and end,
 * and writes its trace. The lock is held only for the turn.
 */
export async function runSessionTurn(
  options: OpenSessionHandleOptions & SessionTurnOptions,
): Promise<SessionTurnResult> {
  const { home, sessionId, workspaceRoot, redactor, ...turnOptions } = options;
  const handle = await openSessionHandle(
    sessionId === undefined
      ? {
          home,
          workspaceRoot: workspaceRoot ?? null,
          ...(redactor === undefined ? {} : { redactor }),
          ...(options.now === undefined ? {} : { now: options.now }),
        }
      : {
          home,
          sessionId,
          ...(redactor === undefined ? {} : { redactor }),
          ...(options.now === undefined ? {} : { now: options.now }),
        },
  );
  try {
    const turn = await handle.runTurn(turnOptions);
    return { ...turn, warnings: [...handle.openWarnings, ...turn.warnings] };
  } finally {
    await handle.close();
  }
}

/** The tool calls a core projection event began sending projected; none for any other event (engine events included). */
function projectedIdsOf(event: EngineEventEnvelope['event']): readonly string[] {
  if (event.type !== 'context.compaction.completed' || event['installed'] !== true) return [];
  const ids = event['projectedToolCallIds'];
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
}
