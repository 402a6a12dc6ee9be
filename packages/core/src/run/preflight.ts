import type { ContextBudget } from '../budget/budget.js';
import { formatTokens } from '../budget/messages.js';
import { preflightRequest, type PreflightStop } from '../budget/preflight.js';
import type { ModelRequest } from '../model/adapter.js';
import type { FittedRequest } from './fit-request.js';
import type { RunContext } from './prepare-request.js';

export type StoppedStep = { readonly kind: 'stop'; readonly stop: PreflightStop };

export type PreparedStep =
  | { readonly kind: 'send'; readonly request: ModelRequest; readonly budget?: ContextBudget }
  | StoppedStep;

/**
 * The preflight phase: estimates the request the adapter is about to receive (or takes the fit
 * phase's estimate of it), emits `context.budgeted`, hands the budget to the `request_compaction`
 * channel, and says `stop` when the request must not be sent.
 */
export async function preflightStep(context: RunContext, step: number, fitted: FittedRequest): Promise<PreparedStep> {
  const { model, policy, instructionsHash, emit } = context.options;
  const { request } = fitted;
  const estimate = fitted.measured?.budget.estimate;
  const preflight = await preflightRequest({
    model,
    request,
    policy,
    step,
    instructionsHash,
    emit,
    view: context.view(),
    ...(estimate === undefined ? {} : { estimate }),
  });
  if (preflight.budget !== undefined) context.options.requests?.update(preflight.budget);
  if (preflight.stop !== undefined) return { kind: 'stop', stop: preflight.stop };
  return { kind: 'send', request, ...(preflight.budget === undefined ? {} : { budget: preflight.budget }) };
}

/**
 * Stops the run before the call: compaction could not make the request fit. Emits
 * `context.limit_reached`; nothing is sent.
 */
export function stopBeforeCall(
  context: RunContext,
  step: number,
  reason: 'compaction_attempt_limit' | 'compaction_same_source' | 'compaction_no_progress' | 'tail_floor',
  detail: string,
  budget: ContextBudget,
): StoppedStep {
  const message =
    reason === 'tail_floor'
      ? detail
      : `The request does not fit (${formatTokens(budget.estimate.tokens)} tokens estimated, ${formatTokens(budget.availableInputTokens)} available for input) and the run stopped instead of compacting again: ${detail}. ` +
        'Nothing was sent. The transcript is intact: continue in a new session, or shorten the request or the instruction files.';
  context.options.emit({ type: 'context.limit_reached', step, reason, message, budget });
  return {
    kind: 'stop',
    stop: { status: 'limit_reached', error: { code: 'context_limit_reached', message, isRetryable: false } },
  };
}
