import type { ErrorSummary } from '../events/events.js';
import type { ModelAdapter, ModelRequest, TokenEstimate, Usage } from '../model/adapter.js';
import type { EstimatorAccuracyTracker } from './accuracy-tracker.js';
import type { ContextBudget } from './budget.js';
import type { ContextEvent } from './context-events.js';
import { budgetOfEstimate, type ViewSummary } from '../view/request-view.js';
import {
  formatTokens,
  limitReachedMessage,
  providerUsageWarningMessage,
  thresholdWarningMessage,
  wholeHistoryLimitMessage,
} from './messages.js';
import type { ContextPolicy } from './policy.js';
import { reconcileUsage } from './reconcile.js';

export interface PreflightOptions {
  readonly model: ModelAdapter;
  readonly request: ModelRequest;
  readonly policy: ContextPolicy;
  readonly step: number;
  readonly instructionsHash: string;
  readonly emit: (event: ContextEvent) => void;
  /** What the request carries of the stored conversation, recorded in `context.budgeted`. */
  readonly view?: ViewSummary;
  /** The adapter's estimate of this same `request`, when the caller has already measured it. */
  readonly estimate?: TokenEstimate;
}

/** Why a request must not be sent: the terminal status and the error the run reports. */
export interface PreflightStop {
  readonly status: 'limit_reached' | 'failed';
  readonly error: ErrorSummary;
}

/** The budget of the request (absent only when estimation failed in mode `off`) and, when it cannot be sent, why. */
export interface PreflightResult {
  readonly budget?: ContextBudget;
  readonly stop?: PreflightStop;
}

/**
 * Estimates the request the adapter is about to receive, emits `context.budgeted`, a
 * `context.warning` past the threshold, and `context.limit_reached` (with `stop` set) when the
 * request cannot fit — mandatory context in mode `compact`, the whole request in the modes that
 * never compact — and the caller must then not contact the provider.
 */
export async function preflightRequest(options: PreflightOptions): Promise<PreflightResult> {
  const { model, request, policy, step, emit } = options;
  let estimate: TokenEstimate;
  try {
    estimate = options.estimate ?? (await model.estimateRequestTokens(request));
  } catch (error) {
    // Mode off keeps the old behaviour: send without a budget. Elsewhere an unknown size is not sent.
    if (policy.mode === 'off') return {};
    const reason = error instanceof Error ? error.message : String(error);
    const message = `The ${model.provider}:${model.modelId} adapter could not estimate the request (${reason}), so nothing was sent. Report this adapter bug, or set context.mode to off to send without a budget.`;
    return { stop: { status: 'failed', error: { code: 'context_estimate_failed', message, isRetryable: false } } };
  }
  const budget = budgetOfEstimate(model, request, estimate, policy);
  const modelRef = { provider: model.provider, modelId: model.modelId };
  emit({
    type: 'context.budgeted',
    step,
    model: modelRef,
    retainedMessages: request.history.length,
    instructionsHash: options.instructionsHash,
    toolCount: request.tools.length,
    toolSchemaTokens: estimate.categories.toolSchemas,
    ...(options.view === undefined ? {} : { view: options.view }),
    ...budget,
  });

  if (budget.decision === 'warn') {
    emit({
      type: 'context.warning',
      step,
      reason: budget.overBudget ? 'over_budget' : 'threshold',
      usedTokens: estimate.tokens,
      availableInputTokens: budget.availableInputTokens,
      warnAtTokens: budget.warnAtTokens,
      message: thresholdWarningMessage(budget),
    });
  }
  if (budget.decision !== 'limit_reached') return { budget };

  const label = `${model.provider}:${model.modelId}`;
  const whole = budget.mode !== 'compact' && budget.mandatoryTokens <= budget.availableInputTokens;
  const message = whole ? wholeHistoryLimitMessage(budget, label) : limitReachedMessage(budget, label);
  emit({ type: 'context.limit_reached', step, reason: whole ? 'whole_history' : 'mandatory_context', message, budget });
  return {
    budget,
    stop: { status: 'limit_reached', error: { code: 'context_limit_reached', message, isRetryable: false } },
  };
}

export interface ReconcileStepOptions {
  readonly model: ModelAdapter;
  readonly budget: ContextBudget;
  readonly usage: Usage;
  readonly step: number;
  readonly tracker: EstimatorAccuracyTracker;
  readonly emit: (event: ContextEvent) => void;
}

/**
 * After a completed step: emits `context.usage.reconciled` (estimate beside provider input),
 * records it in the accuracy tracker, warns when the provider's own count passed the threshold
 * the estimate stayed under, and emits `context.estimator.flagged` the first time the model's
 * estimator is found unsafe. Cache reads never add to the count (they are inside input already).
 */
export function reconcileStep(options: ReconcileStepOptions): void {
  const { model, budget, usage, step, tracker, emit } = options;
  const modelRef = { provider: model.provider, modelId: model.modelId };
  const reconciliation = reconcileUsage(budget.estimate, usage, budget.bufferTokens);
  const { accuracy, becameUnsafe } = tracker.record(model.provider, model.modelId, reconciliation);
  emit({ type: 'context.usage.reconciled', step, model: modelRef, ...reconciliation, accuracy });

  const reported = reconciliation.reportedInputTokens;
  if (budget.mode !== 'off' && budget.decision === 'ok' && reported !== undefined && reported > budget.warnAtTokens) {
    emit({
      type: 'context.warning',
      step,
      reason: 'provider_usage',
      usedTokens: reported,
      availableInputTokens: budget.availableInputTokens,
      warnAtTokens: budget.warnAtTokens,
      message: providerUsageWarningMessage(reported, budget, step),
    });
  }
  if (becameUnsafe) {
    emit({
      type: 'context.estimator.flagged',
      step,
      model: modelRef,
      accuracy,
      message:
        `The token estimator for ${model.provider}:${model.modelId} has undercounted by more than the ${formatTokens(budget.bufferTokens)}-token buffer ` +
        `${accuracy.undercountsBeyondBuffer} times; automatic compaction will not rely on it until the adapter is corrected.`,
    });
  }
}
