import {
  CancelledError,
  ForgeError,
  addUsage,
  assertSafeId,
  createEmitter,
  createId,
  emptyUsage,
  summarizeError,
  sha256Hex,
  type ApprovalGate,
  type ErrorSummary,
  type Message,
  type RunResult,
  type RunStatus,
  type Usage,
} from '@forge/core';
import { endRun } from '@forge/core/engine';
import { approvalHandlerFromGate, codexToolNames } from '../app-server/approvals.js';
import type { CodexAppServer, CodexNotification, CodexThreadOptions } from '../app-server/client.js';
import {
  agentMessageDeltaSchema,
  errorNotificationSchema,
  itemNotificationSchema,
  parseThreadItem,
  serverNotifications,
  tokenUsageUpdatedSchema,
  turnNotificationSchema,
  type CodexThreadItem,
} from '../app-server/protocol.js';
import {
  hasContext,
  renderActiveView,
  renderRequestOnly,
  type CodexActiveView,
  type RenderedActiveView,
} from './active-view.js';
import {
  type CodexCompactionRecord,
  type CodexEngineEvent,
  type CodexEventListener,
  type CodexThreadSelection,
  type CodexTokenUsageRecord,
} from './events.js';
import { TurnTranscript, type ToolOutcomeReport } from './turn-transcript.js';
import { estimateWrapperTokens, type WrapperTokenEstimate } from './wrapper-estimate.js';

export interface RunCodexTurnOptions {
  readonly server: CodexAppServer;
  /**
   * A thread this server has loaded (started, or resumed with `CodexAppServer.resumeThread`) to
   * add the turn to, or options for a new thread.
   */
  readonly thread: { readonly threadId: string } | CodexThreadOptions;
  /**
   * What Codex's thread does not hold yet: the instructions and, for a thread new to the
   * conversation, the bounded view Forge selected (never the whole transcript). Pass empty
   * history and no checkpoint when the thread already holds the conversation.
   */
  readonly view: CodexActiveView;
  /**
   * How the input is built. `thread` (default): a new thread receives the instructions as
   * developer instructions, and the input is the request alone, preceded by a wrapper of the
   * checkpoint and history only when the view has any. `wrapper`: the v1 input, the whole view
   * with the instructions as one text wrapper on every turn.
   */
  readonly input?: 'thread' | 'wrapper';
  /** Why the caller chose this thread; emitted as `codex.thread.selected` once the thread is known. */
  readonly selection?: CodexThreadSelection;
  /** The thread's model when the caller knows it (a continued thread); recorded in the facts. */
  readonly threadModel?: string;
  /** The user's request for this run. */
  readonly request: string;
  /** Decides Codex's approval requests. Without one every request is declined. */
  readonly approvals?: ApprovalGate;
  readonly onEvent?: CodexEventListener;
  /** Aborting interrupts the Codex turn (`turn/interrupt`); the run ends `cancelled`. */
  readonly signal?: AbortSignal;
  readonly runId?: string;
  readonly sessionId?: string;
  readonly now?: () => number;
}

/** Facts the Codex engine owns and Forge only records. */
export interface CodexRunFacts {
  readonly threadId: string;
  readonly turnId: string | undefined;
  /** The Codex version the App Server reported. */
  readonly codexVersion: string;
  readonly rolloutPath: string | undefined;
  /** The model the thread runs, as Codex reported it (undefined for a continued thread the caller did not name one for). */
  readonly model: string | undefined;
  /** What the turn sent: the whole wrapper, or the request alone on a thread that holds the conversation. */
  readonly input: 'wrapper' | 'request';
  readonly wrapper: { readonly sha256: string; readonly estimate: WrapperTokenEstimate };
  readonly tokenUsage: readonly CodexTokenUsageRecord[];
  readonly compactions: readonly CodexCompactionRecord[];
}

/** A core `RunResult` plus what Codex reported about its own side of the turn. */
export interface CodexRunResult extends RunResult {
  readonly codex: CodexRunFacts;
}

/**
 * Runs one user turn on the Codex engine: renders the bounded active view into a text wrapper,
 * reports its cost as `codex.context.budgeted`, starts a Codex turn with it and maps what Codex does
 * into core events and transcript messages. Never throws for turn failures; they end the run
 * with a typed status, as `runAgent` does.
 */
export async function runCodexTurn(options: RunCodexTurnOptions): Promise<CodexRunResult> {
  const now = options.now ?? Date.now;
  const startedAt = now();
  const runId = options.runId === undefined ? createId('run', startedAt) : assertSafeId(options.runId, 'run id');
  if (options.sessionId !== undefined) assertSafeId(options.sessionId, 'session id');
  const signal = options.signal ?? new AbortController().signal;
  const emit = createEmitter<CodexEngineEvent>({ runId, sessionId: options.sessionId, now, listener: options.onEvent });
  const { server } = options;

  const prepared = prepareTurnInput(options);
  const state: TurnState = {
    transcript: new TurnTranscript(),
    tokenUsage: [],
    compactions: [],
    unfinished: new Map(),
    itemStartedAt: new Map(),
    usage: emptyUsage,
    steps: 0,
    threadId: 'threadId' in options.thread ? options.thread.threadId : '',
    rolloutPath: undefined,
    threadModel: options.threadModel,
    turnId: undefined,
  };
  const context: TurnContext = { options, emit, now, state };
  emitTurnStart(context, prepared);
  const finish = (status: RunStatus, error?: ErrorSummary): CodexRunResult =>
    finishTurn(context, { runId, startedAt, prepared }, status, error);

  if (signal.aborted) return finish('cancelled', summarizeError(new CancelledError()));

  const gateHandler = approvalHandlerFromGate(options.approvals);
  server.setApprovalHandler((request, serverSignal) => gateHandler(request, AbortSignal.any([serverSignal, signal])));
  const buffered: CodexNotification[] = [];
  let onNotification: (notification: CodexNotification) => void = (notification) => buffered.push(notification);
  const unsubscribe = server.subscribe((notification) => onNotification(notification));
  let stopExitWatch = (): void => {};
  let stopAbortWatch = (): void => {};

  try {
    if (!('threadId' in options.thread)) {
      const { developerInstructions } = prepared;
      const thread = await server.startThread({
        ...options.thread,
        ...(developerInstructions === undefined ? {} : { developerInstructions }),
      });
      state.threadId = thread.threadId;
      state.rolloutPath = thread.rolloutPath;
      state.threadModel = thread.model;
    }
    emit({
      type: 'codex.thread.selected',
      threadId: state.threadId,
      model: state.threadModel,
      ...(options.selection ?? { how: prepared.newThread ? 'started' : 'continued' }),
    });
    const outcome = await new Promise<TurnOutcome>((resolve, reject) => {
      const handle = notificationHandler(context, resolve);
      stopExitWatch = server.onExit((error) => reject(error));
      const onAbort = (): void => {
        if (state.turnId !== undefined) server.interruptTurn(state.threadId, state.turnId).catch(reject);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      stopAbortWatch = () => signal.removeEventListener('abort', onAbort);
      server
        .startTurn(state.threadId, prepared.rendered.text)
        .then((started) => {
          state.turnId = started.turnId;
          onNotification = handle;
          for (const notification of buffered.splice(0)) handle(notification);
          if (signal.aborted) onAbort();
        })
        .catch(reject);
    });
    return finish(outcome.status, outcome.error);
  } catch (error) {
    return finish(signal.aborted && !ForgeError.isInstance(error) ? 'cancelled' : 'failed', summarizeError(error));
  } finally {
    unsubscribe();
    stopExitWatch();
    stopAbortWatch();
    server.setApprovalHandler(undefined);
  }
}

/** What a turn accumulates while Codex runs it. */
interface TurnState {
  readonly transcript: TurnTranscript;
  readonly tokenUsage: CodexTokenUsageRecord[];
  readonly compactions: CodexCompactionRecord[];
  /** Tool items started and not yet completed: recorded as unfinished when the turn ends without them. */
  readonly unfinished: Map<string, CodexThreadItem>;
  readonly itemStartedAt: Map<string, number>;
  usage: Usage;
  steps: number;
  threadId: string;
  rolloutPath: string | undefined;
  threadModel: string | undefined;
  turnId: string | undefined;
}

interface TurnContext {
  readonly options: RunCodexTurnOptions;
  readonly emit: (event: CodexEngineEvent) => void;
  readonly now: () => number;
  readonly state: TurnState;
}

interface TurnOutcome {
  readonly status: RunStatus;
  readonly error?: ErrorSummary;
}

/** The input the turn sends: the rendered view (or the request alone), its cost and hash, and a new thread's instructions. */
interface PreparedInput {
  readonly newThread: boolean;
  readonly developerInstructions: string | undefined;
  readonly rendered: RenderedActiveView;
  readonly input: 'request' | 'wrapper';
  readonly estimate: WrapperTokenEstimate;
  readonly wrapperSha256: string;
}

function prepareTurnInput(options: RunCodexTurnOptions): PreparedInput {
  const { view } = options;
  const newThread = !('threadId' in options.thread);
  const legacy = options.input === 'wrapper';
  const developerInstructions =
    newThread && !legacy
      ? ((options.thread as CodexThreadOptions).developerInstructions ?? (view.instructions.text.trim() || undefined))
      : undefined;
  const rendered: RenderedActiveView = legacy
    ? renderActiveView(view, options.request)
    : hasContext(view)
      ? renderActiveView(view, options.request, { instructions: false })
      : renderRequestOnly(options.request);
  const input = rendered.text === options.request ? 'request' : 'wrapper';
  const estimate = estimateWrapperTokens(rendered, developerInstructions ?? '');
  const wrapperSha256 = sha256Hex(rendered.text);
  return { newThread, developerInstructions, rendered, input, estimate, wrapperSha256 };
}

function emitTurnStart(context: TurnContext, prepared: PreparedInput): void {
  const { options, emit } = context;
  const { view } = options;
  emit({
    type: 'run.started',
    model: {
      provider: 'codex',
      modelId:
        'threadId' in options.thread
          ? (options.threadModel ?? 'codex-thread')
          : (options.thread.model ?? 'codex-default'),
    },
    instructions: { hash: view.instructions.hash, sources: view.instructions.sources },
    tools: [],
    // Codex decides how many model calls a turn takes; Forge sets no step limit here.
    maxSteps: 0,
    historyMessages: view.history.length,
  });
  emit({
    type: 'codex.context.budgeted',
    estimate: prepared.estimate,
    historyMessages: view.history.length,
    hasCheckpoint: prepared.rendered.sections.checkpoint.length > 0,
    wrapperSha256: prepared.wrapperSha256,
    input: prepared.input,
  });
}

/** Ends the run: tool items still open are recorded as unfinished, then the run's end event and result. */
function finishTurn(
  context: TurnContext,
  run: { readonly runId: string; readonly startedAt: number; readonly prepared: PreparedInput },
  status: RunStatus,
  error?: ErrorSummary,
): CodexRunResult {
  const { options, emit, now, state } = context;
  for (const item of state.unfinished.values()) {
    const report = state.transcript.addUnfinished(item, status === 'cancelled' ? 'cancelled' : 'failed');
    if (report !== undefined) emitToolCompleted(context, item.id, report);
  }
  state.unfinished.clear();
  const durationMs = now() - run.startedAt;
  const messages: Message[] = [{ role: 'user', content: options.request }, ...state.transcript.finish()];
  return {
    ...endRun(emit, {
      runId: run.runId,
      status,
      messages,
      steps: state.steps,
      usage: state.usage,
      durationMs,
      instructionsHash: options.view.instructions.hash,
      error,
    }),
    codex: {
      threadId: state.threadId,
      turnId: state.turnId,
      codexVersion: options.server.info.version,
      rolloutPath: state.rolloutPath,
      model: state.threadModel,
      input: run.prepared.input,
      wrapper: { sha256: run.prepared.wrapperSha256, estimate: run.prepared.estimate },
      tokenUsage: state.tokenUsage,
      compactions: state.compactions,
    },
  };
}

/** Maps the thread's notifications to events and transcript items; resolves with the outcome once the turn completes. */
function notificationHandler(
  context: TurnContext,
  resolve: (outcome: TurnOutcome) => void,
): (notification: CodexNotification) => void {
  const { emit, state } = context;
  let lastError: ErrorSummary | undefined;
  return (notification) => {
    const { method, params } = notification;
    if (method === serverNotifications.agentMessageDelta) {
      const delta = agentMessageDeltaSchema.safeParse(params);
      if (delta.success && delta.data.threadId === state.threadId)
        emit({ type: 'model.text.delta', step: state.steps + 1, delta: delta.data.delta });
      return;
    }
    if (method === serverNotifications.itemStarted || method === serverNotifications.itemCompleted) {
      handleItemNotification(context, method === serverNotifications.itemStarted, params);
      return;
    }
    if (method === serverNotifications.tokenUsageUpdated) {
      recordTokenUsage(context, params);
      return;
    }
    if (method === serverNotifications.error) {
      const parsed = errorNotificationSchema.safeParse(params);
      if (parsed.success && parsed.data.threadId === state.threadId && !parsed.data.willRetry) {
        lastError = { code: 'codex_turn_failed', message: parsed.data.error.message, isRetryable: false };
      }
      return;
    }
    if (method === serverNotifications.turnCompleted) {
      const outcome = completedOutcome(state, params, lastError);
      if (outcome !== undefined) resolve(outcome);
    }
  };
}

function handleItemNotification(context: TurnContext, itemStarted: boolean, params: unknown): void {
  const { emit, now, state } = context;
  const parsed = itemNotificationSchema.safeParse(params);
  if (!parsed.success || parsed.data.threadId !== state.threadId) return;
  const item = parseThreadItem(parsed.data.item);
  if (itemStarted) {
    const tool = toolCallOf(item);
    if (tool === undefined) return;
    state.unfinished.set(item.id, item);
    state.itemStartedAt.set(item.id, now());
    emit({ type: 'tool.call.started', step: state.steps + 1, toolCallId: item.id, ...tool });
    return;
  }
  if (item.type === 'contextCompaction') {
    const compaction = { turnId: parsed.data.turnId, itemId: item.id };
    state.compactions.push(compaction);
    emit({ type: 'codex.compaction.completed', compaction });
    return;
  }
  state.unfinished.delete(item.id);
  const report = state.transcript.add(item);
  if (report !== undefined) emitToolCompleted(context, item.id, report);
}

/** The tool call a Codex item stands for (a command or a patch); undefined for items that are not tool calls. */
function toolCallOf(item: CodexThreadItem): { readonly toolName: string; readonly summary: string } | undefined {
  if (item.type === 'commandExecution') return { toolName: codexToolNames.command, summary: `run ${item.command}` };
  if (item.type === 'fileChange') {
    const paths = item.changes.map((change) => change.path).join(', ');
    return { toolName: codexToolNames.fileChange, summary: `apply a patch: ${paths}` };
  }
  return undefined;
}

/** `tool.call.completed` for a tool item, timed from its `item/started`. */
function emitToolCompleted(context: TurnContext, itemId: string, report: ToolOutcomeReport): void {
  const { emit, now, state } = context;
  const started = state.itemStartedAt.get(itemId);
  state.itemStartedAt.delete(itemId);
  emit({
    type: 'tool.call.completed',
    step: state.steps + 1,
    ...report,
    durationMs: started === undefined ? 0 : now() - started,
  });
}

function recordTokenUsage(context: TurnContext, params: unknown): void {
  const { state } = context;
  const parsed = tokenUsageUpdatedSchema.safeParse(params);
  if (!parsed.success || parsed.data.threadId !== state.threadId) return;
  const record: CodexTokenUsageRecord = { turnId: parsed.data.turnId, ...parsed.data.tokenUsage };
  state.tokenUsage.push(record);
  state.steps += 1;
  const stepUsage: Usage = {
    inputTokens: record.last.inputTokens,
    cacheReadTokens: record.last.cachedInputTokens,
    cacheWriteTokens: undefined,
    outputTokens: record.last.outputTokens,
    reasoningTokens: record.last.reasoningOutputTokens,
  };
  state.usage = addUsage(state.usage, stepUsage);
  context.emit({ type: 'codex.usage.recorded', usage: record });
}

/** The run's outcome from a `turn/completed` of this turn; undefined for another thread's or turn's. */
function completedOutcome(
  state: TurnState,
  params: unknown,
  lastError: ErrorSummary | undefined,
): TurnOutcome | undefined {
  const parsed = turnNotificationSchema.safeParse(params);
  if (
    !parsed.success ||
    parsed.data.threadId !== state.threadId ||
    (state.turnId !== undefined && parsed.data.turn.id !== state.turnId)
  )
    return undefined;
  const turn = parsed.data.turn;
  if (turn.status === 'completed') return { status: 'completed' };
  if (turn.status === 'interrupted') return { status: 'cancelled', error: summarizeError(new CancelledError()) };
  return {
    status: 'failed',
    error: lastError ?? {
      code: 'codex_turn_failed',
      message: turn.error?.message ?? `The Codex turn ended ${turn.status}.`,
      isRetryable: false,
    },
  };
}
