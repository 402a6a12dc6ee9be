import type { ContextPolicy } from '../budget/policy.js';
import type { ContextManager, FitResult } from '../compaction/context-manager.js';
import { CompactionGuard, type CompactionGuardLimits } from '../compaction/guard.js';
import { OutputSizeCache } from '../compaction/projection-plan.js';
import type { CompactionRequestChannel } from '../compaction/request-compaction-tool.js';
import { applyToolOutputProjection, type ToolOutputProjectionOptions } from '../compaction/tool-output-projection.js';
import type { ForgeEvent } from '../events/events.js';
import type { Message, UserMessage } from '../messages.js';
import type { ModelAdapter, ModelRequest, ToolDefinition } from '../model/adapter.js';
import type { OpaqueProviderState } from '../model/opaque-state.js';
import { summarizeView, type ViewSummary } from '../view/request-view.js';
import type { RunState } from './run-state.js';

/** The parts of a step's request that belong to the run itself. */
export interface StepInput {
  readonly instructions: string;
  readonly currentRequest: UserMessage;
  /** This run's messages so far, as recorded (never rewritten). */
  readonly continuation: readonly Message[];
  readonly tools: readonly ToolDefinition[];
  readonly maxOutputTokens?: number;
}

/** What the run knows of the provider's prompt cache before a step, for the cost gate. */
export interface PromptCacheObservation {
  /** Cache reads the provider reported for the previous step. */
  readonly readTokens?: number;
  /** Milliseconds since the conversation's last model request. */
  readonly idleMs?: number;
  /** The checkpoint this step sends differs from the one the conversation's last request carried (first step only). */
  readonly checkpointChanged?: boolean;
}

/** One step on its way to the provider, as the fit and preflight phases see it. */
export interface PendingStep {
  readonly step: number;
  readonly input: StepInput;
  readonly signal: AbortSignal;
  readonly cache: PromptCacheObservation;
}

/** Where the run's history sits in the stored conversation, for budget events. */
export interface RunViewOrigin {
  /** The checkpoint sent before the history. */
  readonly checkpointId?: string;
  /** Stored messages the checkpoint covers; the history starts after them (or, with native state, at 0). */
  readonly coveredMessages: number;
}

export interface RunContextOptions {
  readonly model: ModelAdapter;
  readonly policy: ContextPolicy;
  readonly instructionsHash: string;
  readonly emit: (event: ForgeEvent) => void;
  /** Every stored message after what the checkpoint covers (with native state, every stored message). */
  readonly history: readonly Message[];
  readonly checkpoint?: string;
  readonly nativeState?: OpaqueProviderState;
  readonly origin?: RunViewOrigin;
  readonly manager?: ContextManager;
  readonly guard?: Partial<CompactionGuardLimits>;
  readonly projection?: ToolOutputProjectionOptions;
  /** Tool calls already sent projected by earlier runs (mode `compact`). */
  readonly projected?: Iterable<string>;
  readonly requests?: CompactionRequestChannel;
}

/**
 * The context of one run: what each step sends besides the run's own messages. Every mode sends
 * every stored message — verbatim, or inside the checkpoint in mode `compact` — and the fit phase
 * (fit-request.ts) may change which form, through `projected` and `adopt`.
 */
export class RunContext {
  readonly options: RunContextOptions;
  readonly guard: CompactionGuard;
  /** Tool calls whose outputs are sent in their bounded form. */
  readonly projected: Set<string>;
  readonly sizes: OutputSizeCache;
  /** Stored messages before the run: those the checkpoint covers plus the history after them. */
  private readonly storedMessages: number;
  private history: readonly Message[];
  private checkpointText: string | undefined;
  private checkpointId: string | undefined;
  private coveredMessages: number;
  private nativeState: OpaqueProviderState | undefined;
  /** Set once the run has tried to make room after a provider overflow (once per run). */
  overflowRecovered = false;

  constructor(options: RunContextOptions) {
    this.options = options;
    this.guard = new CompactionGuard(options.guard);
    this.projected = new Set(options.projected ?? []);
    this.sizes = new OutputSizeCache((messages) => options.model.countMessageTokens(messages), options.projection);
    this.history = options.history;
    this.checkpointText = options.checkpoint;
    this.checkpointId = options.origin?.checkpointId;
    this.coveredMessages = options.origin?.coveredMessages ?? 0;
    this.nativeState = options.nativeState;
    const first = this.nativeState === undefined && this.checkpointText !== undefined ? this.coveredMessages : 0;
    this.storedMessages = first + options.history.length;
    this.view();
  }

  /** Whether the request carries a checkpoint now. */
  get hasCheckpoint(): boolean {
    return this.checkpointText !== undefined;
  }

  /** The request of a step as it stands now. */
  build(input: StepInput): ModelRequest {
    const replayed = this.replayedMessages();
    const history =
      this.projected.size === 0
        ? this.history
        : [...this.history.slice(0, replayed), ...this.applyProjection(this.history.slice(replayed))];
    return {
      instructions: input.instructions,
      ...(this.checkpointText === undefined ? {} : { checkpoint: this.checkpointText }),
      history,
      currentRequest: input.currentRequest,
      continuation: this.applyProjection(input.continuation),
      tools: input.tools,
      ...(input.maxOutputTokens === undefined ? {} : { maxOutputTokens: input.maxOutputTokens }),
      ...(this.nativeState === undefined ? {} : { nativeState: this.nativeState }),
    };
  }

  /** What the request carries of the stored conversation; throws when anything would be left out. */
  view(): ViewSummary {
    return viewOf(this.storedMessages, {
      history: this.history,
      checkpoint: this.checkpointText,
      checkpointId: this.checkpointId,
      coveredMessages: this.coveredMessages,
      nativeState: this.nativeState,
    });
  }

  /** The messages of the request that outputs may be projected in: history after replayed native state, the current request, this run's messages. */
  projectionView(input: StepInput): Message[] {
    return [...this.history.slice(this.replayedMessages()), input.currentRequest, ...input.continuation];
  }

  /** Takes the manager's new view, after checking it leaves no stored message out. */
  adopt(result: Extract<FitResult, { kind: 'compacted' }>): void {
    viewOf(this.storedMessages, {
      history: result.history,
      checkpoint: result.checkpoint,
      checkpointId: result.checkpointId,
      coveredMessages: result.coveredThrough,
      nativeState: result.nativeState,
    });
    this.checkpointText = result.checkpoint;
    this.checkpointId = result.checkpointId;
    this.coveredMessages = result.coveredThrough;
    this.history = result.history;
    this.nativeState = result.nativeState;
  }

  /** `messages` with projected outputs in their bounded form, the same objects from step to step. */
  private applyProjection(messages: readonly Message[]): readonly Message[] {
    return this.projected.size === 0
      ? messages
      : applyToolOutputProjection(messages, this.projected, this.options.projection);
  }

  /** History messages that replayed native state stands for (the adapter replaces them). */
  private replayedMessages(): number {
    return this.nativeState === undefined ? 0 : Math.min(this.coveredMessages, this.history.length);
  }
}

/**
 * The first phase of a step: the run's own part of the request (instructions, the current
 * request, this run's messages, tool schemas) and what the run knows of the provider's cache.
 */
export function prepareStep(run: RunState): PendingStep {
  const step = run.steps + 1;
  const input: StepInput = {
    instructions: run.instructions.text,
    currentRequest: run.currentRequest,
    continuation: [...run.continuation],
    tools: run.definitions,
    ...(run.options.maxOutputTokens === undefined ? {} : { maxOutputTokens: run.options.maxOutputTokens }),
  };
  const cache = {
    ...(run.cacheReadTokens === undefined ? {} : { readTokens: run.cacheReadTokens }),
    ...(run.lastRequestAt === undefined ? {} : { idleMs: Math.max(0, run.now() - run.lastRequestAt) }),
    ...(step === 1 && run.session.capabilities?.cache?.checkpointChanged === true ? { checkpointChanged: true } : {}),
  };
  return { step, input, signal: run.signal, cache };
}

/** The view summary of a run's history; throws `ViewHoleError` when it would leave stored messages out. */
function viewOf(
  stored: number,
  view: {
    readonly history: readonly Message[];
    readonly checkpoint: string | undefined;
    readonly checkpointId: string | undefined;
    readonly coveredMessages: number;
    readonly nativeState: OpaqueProviderState | undefined;
  },
): ViewSummary {
  const summarized = view.checkpoint !== undefined || view.nativeState !== undefined;
  const covered = summarized ? view.coveredMessages : 0;
  const replayed = view.nativeState === undefined ? 0 : Math.min(covered, view.history.length);
  return summarizeView({
    stored,
    covered,
    verbatim: view.history.length - replayed,
    ...(view.checkpointId === undefined ? {} : { checkpointId: view.checkpointId }),
  });
}
