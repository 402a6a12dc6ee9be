import type { ContextBudget } from '../budget/budget.js';
import { formatTokens } from '../budget/messages.js';
import type { ContextPolicy } from '../budget/policy.js';
import { preflightRequest, type PreflightStop } from '../budget/preflight.js';
import type { ForgeEvent } from '../events/events.js';
import type { Message, UserMessage } from '../messages.js';
import type { ModelAdapter, ModelRequest, TokenEstimate, ToolDefinition } from '../model/adapter.js';
import type { OpaqueProviderState } from '../model/opaque-state.js';
import { budgetRequest, decideRequest, summarizeView, type ViewSummary } from '../view/request-view.js';
import type { ContextManager, FitReason, FitRequest, FitResult } from './context-manager.js';
import type { CompactionTrigger } from './events.js';
import { CompactionGuard, type CompactionGuardLimits } from './guard.js';
import type { CompactionRequestChannel } from './request-compaction-tool.js';
import { projectionGate } from './projection-gate.js';
import { chooseProjection, keptVerbatimTokens, OutputSizeCache, protectedToolOutputTokens } from './projection-plan.js';
import {
  applyToolOutputProjection,
  projectionCandidates,
  type ToolOutputProjectionOptions,
} from './tool-output-projection.js';

/** Rounds of picking and re-estimating one projection may take (the per-output counts rarely fall short). */
const MAX_PROJECTION_ROUNDS = 3;

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

export type PreparedStep =
  | { readonly kind: 'send'; readonly request: ModelRequest; readonly budget?: ContextBudget }
  | { readonly kind: 'stop'; readonly stop: PreflightStop };

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

interface Measured {
  readonly request: ModelRequest;
  readonly budget: ContextBudget;
}

/**
 * The context of one run: what each step sends besides the run's own messages, decided by the
 * rule of `decideRequest` (view/request-view.ts) on every step. Every mode sends every stored
 * message — verbatim, or inside the checkpoint in mode `compact`. In mode `compact`, a request
 * past the compaction threshold first has older completed tool outputs projected to a bounded
 * form and, if it is still above the target, the host's context manager replaces older turns by
 * a checkpoint, every attempt through the no-progress guard; one clean provider overflow may be
 * recovered the same way. Modes `off` and `warn` never change what is sent; `shadow` lets the
 * manager build the checkpoints compact would make, without sending them.
 */
export class RunContext {
  private readonly options: RunContextOptions;
  private readonly guard: CompactionGuard;
  private readonly projected: Set<string>;
  private readonly sizes: OutputSizeCache;
  /** Stored messages before the run: those the checkpoint covers plus the history after them. */
  private readonly storedMessages: number;
  private history: readonly Message[];
  private checkpoint: string | undefined;
  private checkpointId: string | undefined;
  private coveredMessages: number;
  private nativeState: OpaqueProviderState | undefined;
  private overflowRecovered = false;

  constructor(options: RunContextOptions) {
    this.options = options;
    this.guard = new CompactionGuard(options.guard);
    this.projected = new Set(options.projected ?? []);
    this.sizes = new OutputSizeCache((messages) => options.model.countMessageTokens(messages), options.projection);
    this.history = options.history;
    this.checkpoint = options.checkpoint;
    this.checkpointId = options.origin?.checkpointId;
    this.coveredMessages = options.origin?.coveredMessages ?? 0;
    this.nativeState = options.nativeState;
    const first = this.nativeState === undefined && this.checkpoint !== undefined ? this.coveredMessages : 0;
    this.storedMessages = first + options.history.length;
    this.view();
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
      ...(this.checkpoint === undefined ? {} : { checkpoint: this.checkpoint }),
      history,
      currentRequest: input.currentRequest,
      continuation: this.applyProjection(input.continuation),
      tools: input.tools,
      ...(input.maxOutputTokens === undefined ? {} : { maxOutputTokens: input.maxOutputTokens }),
      ...(this.nativeState === undefined ? {} : { nativeState: this.nativeState }),
    };
  }

  /**
   * Prepares the request of `step`: applies the view rule (compaction past the threshold in mode
   * `compact`, shadow checkpoints in mode `shadow`), then runs the budget preflight (which emits
   * `context.budgeted`). `stop` means the request must not be sent.
   */
  async prepare(
    step: number,
    input: StepInput,
    signal: AbortSignal,
    cache: PromptCacheObservation = {},
  ): Promise<PreparedStep> {
    const { policy, manager } = this.options;
    const requested = this.options.requests?.take();
    let request = this.build(input);
    // What was measured of the request to send, so that preflight does not estimate it again.
    let measured: Measured | undefined;
    if (policy.mode === 'shadow' && manager?.shadowStep !== undefined) {
      measured = await this.measure(request);
      if (measured !== undefined)
        await manager.shadowStep(
          this.fitRequest(requested === undefined ? 'preflight' : 'model_request', step, measured, signal, cache),
        );
    }
    if (policy.mode === 'compact') {
      const outcome = await this.compactIfDue(step, input, request, requested !== undefined, signal, cache);
      if (outcome.kind === 'stop') return outcome;
      request = outcome.request;
      measured = outcome.measured;
    }
    return this.preflight(step, request, measured?.budget.estimate);
  }

  /**
   * After a provider overflow on `step` whose attempt showed nothing: makes room once per run
   * (projection, then the context manager) and returns the step to send again with the same
   * admitted input, or undefined when nothing can be done (the step fails as it is).
   */
  async recoverOverflow(step: number, input: StepInput, signal: AbortSignal): Promise<PreparedStep | undefined> {
    if (this.options.policy.mode !== 'compact' || this.overflowRecovered) return undefined;
    this.overflowRecovered = true;
    let current = await this.measure(this.build(input));
    if (current === undefined) return undefined;
    let changed = false;
    const projected = await this.project(step, input, current, 'overflow');
    if (projected !== undefined) {
      current = projected;
      changed = true;
    }
    const { manager } = this.options;
    if (manager !== undefined && this.guard.beginAttempt().ok) {
      const completion = this.holdCompletion();
      const result = await manager.fit(this.fitRequest('overflow', step, current, signal, {}, completion.emit));
      if (result.kind !== 'compacted') completion.release();
      if (result.kind === 'stop') return this.stop(step, 'tail_floor', result.message, current.budget);
      if (result.kind === 'compacted') {
        this.adopt(result);
        const adopted = await this.measure(this.build(input));
        completion.release(adopted === undefined ? undefined : await this.keptVerbatim(input, adopted));
        // Only a new range counts: the same messages compacted again cannot make the retry fit.
        if (this.guard.recordSource(result.sourceHash)) changed = true;
      }
    }
    return changed ? this.preflight(step, this.build(input)) : undefined;
  }

  /**
   * Mode `compact`: past the threshold (or over budget, or when the model asked), projects older
   * tool outputs and, while the request is above the target, asks the context manager for a
   * checkpoint. A declined compaction leaves the whole request, which fits.
   */
  private async compactIfDue(
    step: number,
    input: StepInput,
    request: ModelRequest,
    requested: boolean,
    signal: AbortSignal,
    cache: PromptCacheObservation,
  ): Promise<
    | { readonly kind: 'ready'; readonly request: ModelRequest; readonly measured?: Measured }
    | Extract<PreparedStep, { kind: 'stop' }>
  > {
    const { manager } = this.options;
    let current = await this.measure(request);
    if (current === undefined) return { kind: 'ready', request };
    const ready = (measured: Measured) => ({ kind: 'ready' as const, request: measured.request, measured });
    let decision = decideRequest(current.budget);
    const due = decision.kind !== 'send';
    // Older tool outputs, this run's included, are projected first: the only room when the run's own messages fill the window.
    if (due) {
      const projected = await this.project(
        step,
        input,
        current,
        decision.kind === 'compact' ? decision.trigger : 'over_budget',
        cache,
      );
      if (projected !== undefined) {
        current = projected;
        decision = decideRequest(current.budget);
      }
    }
    if (decision.kind === 'cannot_fit') {
      if (manager !== undefined) {
        this.options.emit({
          type: 'context.compaction.skipped',
          step,
          trigger: 'over_budget',
          reason: 'mandatory_context',
          message: 'what must be sent does not fit by itself; compacting history cannot help',
        });
      }
      return ready(current);
    }
    const aboveTarget = current.budget.estimate.tokens > current.budget.compactTargetTokens;
    const changed = cache.checkpointChanged === true && this.checkpoint !== undefined;
    if (manager === undefined || !((due && aboveTarget) || requested || changed)) return ready(current);
    const reason: FitReason =
      due && (aboveTarget || requested) ? 'preflight' : requested ? 'model_request' : 'checkpoint_changed';
    const fitted = await this.fit(step, input, current, reason, signal, cache);
    if ('stop' in fitted) return fitted;
    if (fitted.budget.overBudget)
      return this.stop(step, 'compaction_no_progress', 'compaction could not make room for it', fitted.budget);
    return ready(fitted);
  }

  /** `estimate`, when given, is the adapter's estimate of this same `request`. */
  private async preflight(step: number, request: ModelRequest, estimate?: TokenEstimate): Promise<PreparedStep> {
    const { model, policy, instructionsHash, emit } = this.options;
    const preflight = await preflightRequest({
      model,
      request,
      policy,
      step,
      instructionsHash,
      emit,
      view: this.view(),
      ...(estimate === undefined ? {} : { estimate }),
    });
    if (preflight.budget !== undefined) this.options.requests?.update(preflight.budget);
    if (preflight.stop !== undefined) return { kind: 'stop', stop: preflight.stop };
    return { kind: 'send', request, ...(preflight.budget === undefined ? {} : { budget: preflight.budget }) };
  }

  /** `messages` with projected outputs in their bounded form, the same objects from step to step. */
  private applyProjection(messages: readonly Message[]): readonly Message[] {
    return this.projected.size === 0
      ? messages
      : applyToolOutputProjection(messages, this.projected, this.options.projection);
  }

  /** What the request carries of the stored conversation; throws when anything would be left out. */
  private view(): ViewSummary {
    return viewOf(this.storedMessages, {
      history: this.history,
      checkpoint: this.checkpoint,
      checkpointId: this.checkpointId,
      coveredMessages: this.coveredMessages,
      nativeState: this.nativeState,
    });
  }

  /** History messages that replayed native state stands for (the adapter replaces them). */
  private replayedMessages(): number {
    return this.nativeState === undefined ? 0 : Math.min(this.coveredMessages, this.history.length);
  }

  /** Estimates without emitting anything; undefined when the estimator fails (preflight reports it). */
  private async measure(request: ModelRequest): Promise<Measured | undefined> {
    try {
      return { request, budget: await budgetRequest(this.options.model, request, this.options.policy) };
    } catch {
      return undefined;
    }
  }

  private fitRequest(
    reason: FitReason,
    step: number,
    current: Measured,
    signal: AbortSignal,
    cache: PromptCacheObservation,
    emit = this.options.emit,
  ): FitRequest {
    return {
      reason,
      step,
      request: current.request,
      budget: current.budget,
      model: this.options.model,
      signal,
      emit,
      ...(cache.readTokens === undefined ? {} : { cacheReadTokens: cache.readTokens }),
      ...(cache.idleMs === undefined ? {} : { idleMs: cache.idleMs }),
      ...(cache.checkpointChanged === true ? { checkpointChanged: true } : {}),
    };
  }

  /** The messages of the request that outputs may be projected in: history after replayed native state, the current request, this run's messages. */
  private projectionView(input: StepInput): Message[] {
    return [...this.history.slice(this.replayedMessages()), input.currentRequest, ...input.continuation];
  }

  /**
   * Projects just enough older completed tool outputs to bring the request under its compaction
   * target (see `chooseProjection` for the order and the protected newest outputs); undefined
   * when none is projected. Savings come from per-output counts made once per message; one full
   * estimate confirms them (a second round picks more if the counts fell short). Protected
   * outputs go too only when the request would otherwise not fit at all: a request over budget
   * cannot be sent, and a checkpoint cannot shrink the running turn, where such outputs usually are.
   */
  private async project(
    step: number,
    input: StepInput,
    current: Measured,
    trigger: CompactionTrigger,
    cache: PromptCacheObservation = {},
  ): Promise<Measured | undefined> {
    const view = this.projectionView(input);
    let remaining = projectionCandidates(view, this.options.projection).filter(
      (candidate) => !this.projected.has(candidate.toolCallId),
    );
    if (remaining.length === 0) return undefined;
    const sizes = await this.sizes.of(
      view,
      remaining.map((candidate) => candidate.messageIndex),
    );
    const target = current.budget.compactTargetTokens;
    let protectedTokens = protectedToolOutputTokens(this.options.policy, current.budget);
    const chosen: string[] = [];
    let next = current;
    for (
      let round = 0;
      round < MAX_PROJECTION_ROUNDS && next.budget.estimate.tokens > target && remaining.length > 0;
    ) {
      const choice = chooseProjection({
        candidates: remaining,
        sizes,
        excessTokens: next.budget.estimate.tokens - target,
        protectedTokens,
      });
      if (choice.ids.length === 0) {
        if (protectedTokens === 0 || !next.budget.overBudget) break;
        protectedTokens = 0;
        continue;
      }
      round += 1;
      for (const id of choice.ids) {
        this.projected.add(id);
        chosen.push(id);
      }
      remaining = remaining.filter((candidate) => !this.projected.has(candidate.toolCallId));
      next = (await this.measure(this.build(input))) ?? next;
    }
    if (chosen.length === 0) return undefined;
    const tokensBefore = current.budget.estimate.tokens;
    const tokensAfter = next.budget.estimate.tokens;
    // Past the threshold, the request still fits: project only when the priced gate says it pays.
    if (trigger === 'threshold' && !current.budget.overBudget) {
      const gate = projectionGate(this.options.model, current.budget.estimate, tokensAfter, cache);
      if (!gate.compact) {
        for (const id of chosen) this.projected.delete(id);
        this.options.emit({
          type: 'context.compaction.skipped',
          step,
          trigger,
          reason: 'cost_gate',
          message:
            'projecting older tool outputs would cost more than it saves while the request still fits: the cached request is worth more than the smaller ones after it',
          strategy: 'tool-output-projection',
          tokensBefore,
          wouldReclaimTokens: tokensBefore - tokensAfter,
          costGate: gate,
        });
        return undefined;
      }
    }
    this.options.emit({
      type: 'context.compaction.completed',
      step,
      trigger: trigger === 'threshold' && current.budget.overBudget ? 'over_budget' : trigger,
      strategy: 'tool-output-projection',
      mode: this.options.policy.mode,
      installed: true,
      reused: false,
      tokensBefore,
      tokensAfter,
      reclaimedTokens: tokensBefore - tokensAfter,
      keptVerbatimTokens: await this.keptVerbatim(input, next),
      projectedOutputs: chosen.length,
      projectedToolCallIds: chosen,
    });
    return next;
  }

  /** Tokens of history and continuation `measured` sends verbatim: its estimate less the projected outputs it carries. */
  private async keptVerbatim(input: StepInput, measured: Measured): Promise<number> {
    if (this.projected.size === 0) return keptVerbatimTokens(measured.budget.estimate);
    const view = this.projectionView(input);
    const indexes = view.flatMap((message, index) =>
      message.role === 'tool' && message.content.some((part) => this.projected.has(part.toolCallId)) ? [index] : [],
    );
    const sizes = await this.sizes.of(view, indexes);
    let projected = 0;
    for (const id of this.projected) projected += sizes.get(id)?.projected ?? 0;
    return keptVerbatimTokens(measured.budget.estimate, projected);
  }

  /**
   * The manager's `emit` for one `fit`: its `context.compaction.completed` event is held back
   * until `release`, which adds what the adopted view keeps verbatim as this run measures it (the
   * run's projected outputs included). Nothing follows that event within a `fit`, so the order of
   * events is unchanged.
   */
  private holdCompletion(): { readonly emit: (event: ForgeEvent) => void; release(kept?: number): void } {
    let held: Extract<ForgeEvent, { type: 'context.compaction.completed' }> | undefined;
    return {
      emit: (event) => {
        if (event.type === 'context.compaction.completed' && event.installed && held === undefined) held = event;
        else this.options.emit(event);
      },
      release: (kept) => {
        if (held !== undefined) this.options.emit(kept === undefined ? held : { ...held, keptVerbatimTokens: kept });
        held = undefined;
      },
    };
  }

  /** Asks the context manager for room until the request fits, through the no-progress guard. */
  private async fit(
    step: number,
    input: StepInput,
    start: Measured,
    reason: FitReason,
    signal: AbortSignal,
    cache: PromptCacheObservation,
  ): Promise<Measured | Extract<PreparedStep, { kind: 'stop' }>> {
    const manager = this.options.manager as ContextManager;
    let current = start;
    for (let why = reason; ; why = 'preflight') {
      const verdict = this.guard.beginAttempt();
      if (!verdict.ok) {
        this.options.emit({
          type: 'context.compaction.skipped',
          step,
          trigger: current.budget.overBudget ? 'over_budget' : 'threshold',
          reason: 'guard',
          message: verdict.message,
        });
        return current.budget.overBudget ? this.stop(step, verdict.reason, verdict.message, current.budget) : current;
      }
      const completion = this.holdCompletion();
      const result = await manager.fit(this.fitRequest(why, step, current, signal, cache, completion.emit));
      if (result.kind !== 'compacted') completion.release();
      if (result.kind === 'unchanged') return current;
      if (result.kind === 'stop') return this.stop(step, 'tail_floor', result.message, current.budget);
      this.adopt(result);
      const adopted = await this.measure(this.build(input));
      completion.release(adopted === undefined ? undefined : await this.keptVerbatim(input, adopted));
      const next = adopted ?? current;
      const judged = this.guard.judge({
        sourceHash: result.sourceHash,
        tokensBefore: current.budget.estimate.tokens,
        tokensAfter: next.budget.estimate.tokens,
      });
      current = next;
      if (!judged.ok)
        return current.budget.overBudget ? this.stop(step, judged.reason, judged.message, current.budget) : current;
      if (!current.budget.overBudget) return current;
    }
  }

  /** Takes the manager's new view, after checking it leaves no stored message out. */
  private adopt(result: Extract<FitResult, { kind: 'compacted' }>): void {
    viewOf(this.storedMessages, {
      history: result.history,
      checkpoint: result.checkpoint,
      checkpointId: result.checkpointId,
      coveredMessages: result.coveredThrough,
      nativeState: result.nativeState,
    });
    this.checkpoint = result.checkpoint;
    this.checkpointId = result.checkpointId;
    this.coveredMessages = result.coveredThrough;
    this.history = result.history;
    this.nativeState = result.nativeState;
  }

  private stop(
    step: number,
    reason: 'compaction_attempt_limit' | 'compaction_same_source' | 'compaction_no_progress' | 'tail_floor',
    detail: string,
    budget: ContextBudget,
  ): Extract<PreparedStep, { kind: 'stop' }> {
    const message =
      reason === 'tail_floor'
        ? detail
        : `The request does not fit (${formatTokens(budget.estimate.tokens)} tokens estimated, ${formatTokens(budget.availableInputTokens)} available for input) and the run stopped instead of compacting again: ${detail}. ` +
          'Nothing was sent. The transcript is intact: continue in a new session, or shorten the request or the instruction files.';
    this.options.emit({ type: 'context.limit_reached', step, reason, message, budget });
    return {
      kind: 'stop',
      stop: { status: 'limit_reached', error: { code: 'context_limit_reached', message, isRetryable: false } },
    };
  }
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
