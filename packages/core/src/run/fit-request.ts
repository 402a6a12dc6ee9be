import type { FitReason } from '../compaction/context-manager.js';
import type { ModelRequest } from '../model/adapter.js';
import { decideRequest } from '../view/request-view.js';
import { compactAfterOverflow, compactUntilFit, managerRequest } from './fit-compaction.js';
import { measure, projectToolOutputs, type Measured } from './fit-projection.js';
import type { PendingStep, RunContext } from './prepare-request.js';
import { stopBeforeCall, type StoppedStep } from './preflight.js';

/** A request ready for preflight, with its estimate when the fit phase measured it. */
export interface FittedRequest {
  readonly kind: 'fitted';
  readonly request: ModelRequest;
  readonly measured?: Measured;
}

/**
 * The fit phase of a step, by the rule of `decideRequest` (view/request-view.ts). In mode
 * `compact`, a request past the compaction threshold first has older completed tool outputs
 * projected to a bounded form and, if it is still above the target, the host's context manager
 * replaces older turns by a checkpoint, every attempt through the no-progress guard. Modes `off`
 * and `warn` never change what is sent; `shadow` lets the manager build the checkpoints compact
 * would make, without sending them.
 */
export async function fitRequest(context: RunContext, pending: PendingStep): Promise<FittedRequest | StoppedStep> {
  const { policy, manager } = context.options;
  const requested = context.options.requests?.take();
  const request = context.build(pending.input);
  if (policy.mode === 'shadow' && manager?.shadowStep !== undefined) {
    const measured = await measure(context, request);
    if (measured !== undefined)
      await manager.shadowStep(
        managerRequest(context, pending, requested === undefined ? 'preflight' : 'model_request', measured),
      );
    return { kind: 'fitted', request, ...(measured === undefined ? {} : { measured }) };
  }
  if (policy.mode === 'compact') return compactIfDue(context, pending, request, requested !== undefined);
  return { kind: 'fitted', request };
}

/**
 * Mode `compact`: past the threshold (or over budget, or when the model asked), projects older
 * tool outputs and, while the request is above the target, asks the context manager for a
 * checkpoint. A declined compaction leaves the whole request, which fits.
 */
async function compactIfDue(
  context: RunContext,
  pending: PendingStep,
  request: ModelRequest,
  requested: boolean,
): Promise<FittedRequest | StoppedStep> {
  const { step, cache } = pending;
  const { manager } = context.options;
  let current = await measure(context, request);
  if (current === undefined) return { kind: 'fitted', request };
  const ready = (measured: Measured): FittedRequest => ({ kind: 'fitted', request: measured.request, measured });
  let decision = decideRequest(current.budget);
  const due = decision.kind !== 'send';
  // Older tool outputs, this run's included, are projected first: the only room when the run's own messages fill the window.
  if (due) {
    const trigger = decision.kind === 'compact' ? decision.trigger : 'over_budget';
    const projected = await projectToolOutputs(context, pending, current, trigger);
    if (projected !== undefined) {
      current = projected;
      decision = decideRequest(current.budget);
    }
  }
  if (decision.kind === 'cannot_fit') {
    if (manager !== undefined) {
      context.options.emit({
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
  const changed = cache.checkpointChanged === true && context.hasCheckpoint;
  if (manager === undefined || !((due && aboveTarget) || requested || changed)) return ready(current);
  const reason: FitReason =
    due && (aboveTarget || requested) ? 'preflight' : requested ? 'model_request' : 'checkpoint_changed';
  const fitted = await compactUntilFit(context, pending, current, reason);
  if ('stop' in fitted) return fitted;
  if (fitted.budget.overBudget)
    return stopBeforeCall(
      context,
      step,
      'compaction_no_progress',
      'compaction could not make room for it',
      fitted.budget,
    );
  return ready(fitted);
}

/**
 * After a provider overflow on a step whose attempt showed nothing: makes room once per run
 * (projection, then the context manager) and gives the request to send again with the same
 * admitted input, or undefined when nothing changed (the step fails as it is).
 */
export async function fitAfterOverflow(
  context: RunContext,
  pending: PendingStep,
): Promise<FittedRequest | StoppedStep | undefined> {
  if (context.options.policy.mode !== 'compact' || context.overflowRecovered) return undefined;
  context.overflowRecovered = true;
  const overflow = { ...pending, cache: {} };
  let current = await measure(context, context.build(pending.input));
  if (current === undefined) return undefined;
  let changed = false;
  const projected = await projectToolOutputs(context, overflow, current, 'overflow');
  if (projected !== undefined) {
    current = projected;
    changed = true;
  }
  const compacted = await compactAfterOverflow(context, overflow, current);
  if (typeof compacted === 'object') return compacted;
  return changed || compacted ? { kind: 'fitted', request: context.build(pending.input) } : undefined;
}
