import { computeContextBudget, type ContextBudget } from '../budget/budget.js';
import type { ContextCapabilities } from '../budget/capabilities.js';
import { formatTokens } from '../budget/messages.js';
import type { ContextPolicy } from '../budget/policy.js';
import { preflightRequest, type PreflightStop } from '../budget/preflight.js';
import type { ForgeEvent } from '../events/events.js';
import type { Message, UserMessage } from '../messages.js';
import type { ModelAdapter, ModelRequest, ToolDefinition } from '../model/adapter.js';
import type { OpaqueProviderState } from '../model/opaque-state.js';
import type { ContextManager, FitReason } from './context-manager.js';
import type { CompactionTrigger } from './events.js';
import { CompactionGuard, type CompactionGuardLimits } from './guard.js';
import type { CompactionRequestChannel } from './request-compaction-tool.js';
import { applyToolOutputProjection, projectableToolCalls, type ToolOutputProjectionOptions } from './tool-output-projection.js';

/** The parts of a step's request that belong to the run itself. */
export interface StepInput {
  readonly instructions: string;
  readonly currentRequest: UserMessage;
  /** This run's messages so far, as recorded (never rewritten). */
  readonly continuation: readonly Message[];
  readonly tools: readonly ToolDefinition[];
  readonly maxOutputTokens?: number;
}

export type PreparedStep =
  | { readonly kind: 'send'; readonly request: ModelRequest; readonly budget?: ContextBudget }
  | { readonly kind: 'stop'; readonly stop: PreflightStop };

export interface RunContextOptions {
  readonly model: ModelAdapter;
  readonly policy: ContextPolicy;
  readonly instructionsHash: string;
  readonly emit: (event: ForgeEvent) => void;
  readonly history: readonly Message[];
  readonly checkpoint?: string;
  readonly nativeState?: OpaqueProviderState;
  readonly manager?: ContextManager;
  readonly guard?: Partial<CompactionGuardLimits>;
  readonly projection?: ToolOutputProjectionOptions;
  readonly requests?: CompactionRequestChannel;
}

interface Measured {
  readonly request: ModelRequest;
  readonly budget: ContextBudget;
}

function underPressure(budget: ContextBudget): boolean {
  return budget.estimate.tokens > budget.warnAtTokens;
}

/**
 * The context of one run: what each step sends besides the run's own messages (history,
 * checkpoint, native state), and the in-run guards. Before every step the request is estimated;
 * in mode `compact` older completed tool outputs are projected to a bounded form first, then the
 * host's context manager may replace older turns by a checkpoint — every attempt through the
 * no-progress guard. One clean provider overflow may be recovered the same way. Modes `off` and
 * `warn` never change what is sent; `shadow` lets the manager build checkpoints it never installs.
 */
export class RunContext {
  private readonly options: RunContextOptions;
  private readonly guard: CompactionGuard;
  private readonly projected = new Set<string>();
  private history: readonly Message[];
  private checkpoint: string | undefined;
  private nativeState: OpaqueProviderState | undefined;
  private overflowRecovered = false;

  constructor(options: RunContextOptions) {
    this.options = options;
    this.guard = new CompactionGuard(options.guard);
    this.history = options.history;
    this.checkpoint = options.checkpoint;
    this.nativeState = options.nativeState;
  }

  /** The request of a step as it stands now. */
  build(input: StepInput): ModelRequest {
    const { projection } = this.options;
    const replayed = this.nativeState === undefined ? 0 : Math.min(this.nativeState.sourceMessages, this.history.length);
    const history =
      this.projected.size === 0
        ? this.history
        : [...this.history.slice(0, replayed), ...applyToolOutputProjection(this.history.slice(replayed), this.projected, projection)];
    return {
      instructions: input.instructions,
      ...(this.checkpoint === undefined ? {} : { checkpoint: this.checkpoint }),
      history,
      currentRequest: input.currentRequest,
      continuation: applyToolOutputProjection(input.continuation, this.projected, projection),
      tools: input.tools,
      ...(input.maxOutputTokens === undefined ? {} : { maxOutputTokens: input.maxOutputTokens }),
      ...(this.nativeState === undefined ? {} : { nativeState: this.nativeState }),
    };
  }

  /**
   * Prepares the request of `step`: fits it when it must and may, then runs the budget preflight
   * (which emits `context.budgeted`). `stop` means the request must not be sent.
   */
  async prepare(step: number, input: StepInput, signal: AbortSignal, cacheReadTokens?: number): Promise<PreparedStep> {
    const { policy, manager } = this.options;
    let request = this.build(input);
    const requested = this.options.requests?.take();
    if (policy.mode === 'compact' || policy.mode === 'shadow') {
      let current = await this.measure(request);
      if (current !== undefined && step === 1 && manager?.compactAtStart === true) current = await this.compactAtStart(step, input, current, signal);
      if (current !== undefined) {
        if (policy.mode === 'compact' && underPressure(current.budget)) current = (await this.project(step, input, current, 'threshold')) ?? current;
        let fitted = false;
        if (manager !== undefined && (underPressure(current.budget) || requested !== undefined)) {
          if (current.budget.mandatoryTokens > current.budget.availableInputTokens) {
            this.options.emit({ type: 'context.compaction.skipped', step, trigger: 'over_budget', reason: 'mandatory_context', message: 'what must be sent does not fit by itself; compacting history cannot help' });
          } else {
            const reason: FitReason = underPressure(current.budget) ? 'preflight' : 'model_request';
            const outcome = await this.fit(step, input, current, reason, signal, cacheReadTokens);
            if ('stop' in outcome) return outcome;
            current = outcome;
            fitted = true;
          }
        }
        if (policy.mode === 'compact' && fitted && current.budget.overBudget) {
          return this.stop(step, 'compaction_no_progress', 'compaction could not make room for it', current.budget);
        }
        request = current.request;
      }
    }
    return this.preflight(step, request);
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
      const result = await manager.fit({ reason: 'overflow', step, request: current.request, budget: current.budget, model: this.options.model, signal, emit: this.options.emit });
      if (result.kind === 'stop') return this.stop(step, 'tail_floor', result.message, current.budget);
      if (result.kind === 'compacted') {
        this.adopt(result);
        // Only a new range counts: the same messages compacted again cannot make the retry fit.
        if (this.guard.recordSource(result.sourceHash)) changed = true;
      }
    }
    return changed ? this.preflight(step, this.build(input)) : undefined;
  }

  private async preflight(step: number, request: ModelRequest): Promise<PreparedStep> {
    const { model, policy, instructionsHash, emit } = this.options;
    const preflight = await preflightRequest({ model, request, policy, step, instructionsHash, emit });
    if (preflight.budget !== undefined) this.options.requests?.update(preflight.budget);
    if (preflight.stop !== undefined) return { kind: 'stop', stop: preflight.stop };
    return { kind: 'send', request, ...(preflight.budget === undefined ? {} : { budget: preflight.budget }) };
  }

  /** Estimates without emitting anything; undefined when the estimator fails (preflight reports it). */
  private async measure(request: ModelRequest): Promise<Measured | undefined> {
    const { model, policy } = this.options;
    try {
      const estimate = await model.estimateRequestTokens(request);
      const budget = computeContextBudget({
        capabilities: model.capabilities as ContextCapabilities,
        estimate,
        policy,
        ...(request.maxOutputTokens === undefined ? {} : { requestedOutputTokens: request.maxOutputTokens }),
      });
      return { request, budget };
    } catch {
      return undefined;
    }
  }

  /** Projects older completed tool outputs not projected yet; undefined when there are none. */
  private async project(step: number, input: StepInput, current: Measured, trigger: CompactionTrigger): Promise<Measured | undefined> {
    const replayed = this.nativeState === undefined ? 0 : Math.min(this.nativeState.sourceMessages, this.history.length);
    const view = [...this.history.slice(replayed), input.currentRequest, ...input.continuation];
    const candidates = projectableToolCalls(view, this.options.projection).filter((id) => !this.projected.has(id));
    if (candidates.length === 0) return undefined;
    for (const id of candidates) this.projected.add(id);
    const next = (await this.measure(this.build(input))) ?? current;
    const tokensBefore = current.budget.estimate.tokens;
    const tokensAfter = next.budget.estimate.tokens;
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
      projectedOutputs: candidates.length,
    });
    return next;
  }

  /**
   * Lets the host summarize completed turns that fall outside the view before the first step.
   * It is about keeping them, not about room, so how much it reclaims is not judged; it counts as
   * an attempt and its range is remembered.
   */
  private async compactAtStart(step: number, input: StepInput, current: Measured, signal: AbortSignal): Promise<Measured> {
    const manager = this.options.manager as ContextManager;
    if (!this.guard.beginAttempt().ok) return current;
    const result = await manager.fit({ reason: 'turn_start', step, request: current.request, budget: current.budget, model: this.options.model, signal, emit: this.options.emit });
    if (result.kind !== 'compacted') return current;
    this.adopt(result);
    this.guard.recordSource(result.sourceHash);
    return (await this.measure(this.build(input))) ?? current;
  }

  /** Asks the context manager for room until the request fits, through the no-progress guard. */
  private async fit(
    step: number,
    input: StepInput,
    start: Measured,
    reason: FitReason,
    signal: AbortSignal,
    cacheReadTokens: number | undefined,
  ): Promise<Measured | Extract<PreparedStep, { kind: 'stop' }>> {
    const manager = this.options.manager as ContextManager;
    let current = start;
    for (let why = reason; ; why = 'preflight') {
      const verdict = this.guard.beginAttempt();
      if (!verdict.ok) {
        this.options.emit({ type: 'context.compaction.skipped', step, trigger: current.budget.overBudget ? 'over_budget' : 'threshold', reason: 'guard', message: verdict.message });
        return current.budget.overBudget ? this.stop(step, verdict.reason, verdict.message, current.budget) : current;
      }
      const result = await manager.fit({
        reason: why,
        step,
        request: current.request,
        budget: current.budget,
        model: this.options.model,
        signal,
        emit: this.options.emit,
        ...(cacheReadTokens === undefined ? {} : { cacheReadTokens }),
      });
      if (result.kind === 'unchanged') return current;
      if (result.kind === 'stop') return this.stop(step, 'tail_floor', result.message, current.budget);
      this.adopt(result);
      const next = (await this.measure(this.build(input))) ?? current;
      const judged = this.guard.judge({ sourceHash: result.sourceHash, tokensBefore: current.budget.estimate.tokens, tokensAfter: next.budget.estimate.tokens });
      current = next;
      if (!judged.ok) return current.budget.overBudget ? this.stop(step, judged.reason, judged.message, current.budget) : current;
      if (!current.budget.overBudget) return current;
    }
  }

  private adopt(result: { readonly checkpoint: string; readonly history: readonly Message[]; readonly nativeState?: OpaqueProviderState }): void {
    this.checkpoint = result.checkpoint;
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
    return { kind: 'stop', stop: { status: 'limit_reached', error: { code: 'context_limit_reached', message, isRetryable: false } } };
  }
}
