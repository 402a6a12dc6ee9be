import type { ContextManager, FitReason, FitRequest } from '../compaction/context-manager.js';
import type { ForgeEvent } from '../events/events.js';
import { keptVerbatim, measure, type Measured } from './fit-projection.js';
import type { PendingStep, RunContext } from './prepare-request.js';
import { stopBeforeCall, type StoppedStep } from './preflight.js';

/** What the context manager is asked for one step; `emit` defaults to the run's. */
export function managerRequest(
  context: RunContext,
  pending: PendingStep,
  reason: FitReason,
  current: Measured,
  emit = context.options.emit,
): FitRequest {
  const { step, signal, cache } = pending;
  return {
    reason,
    step,
    request: current.request,
    budget: current.budget,
    model: context.options.model,
    signal,
    emit,
    ...(cache.readTokens === undefined ? {} : { cacheReadTokens: cache.readTokens }),
    ...(cache.idleMs === undefined ? {} : { idleMs: cache.idleMs }),
    ...(cache.checkpointChanged === true ? { checkpointChanged: true } : {}),
  };
}

/**
 * The manager's `emit` for one `fit`: its `context.compaction.completed` event is held back
 * until `release`, which adds what the adopted view keeps verbatim as this run measures it (the
 * run's projected outputs included). Nothing follows that event within a `fit`, so the order of
 * events is unchanged.
 */
function holdCompletion(context: RunContext): {
  readonly emit: (event: ForgeEvent) => void;
  release(kept?: number): void;
} {
  let held: Extract<ForgeEvent, { type: 'context.compaction.completed' }> | undefined;
  return {
    emit: (event) => {
      if (event.type === 'context.compaction.completed' && event.installed && held === undefined) held = event;
      else context.options.emit(event);
    },
    release: (kept) => {
      if (held !== undefined) context.options.emit(kept === undefined ? held : { ...held, keptVerbatimTokens: kept });
      held = undefined;
    },
  };
}

/**
 * One call of the context manager: adopts a compacted view (and measures it), or says the
 * manager left the request as it was or stopped the run. `adopted` is undefined when the
 * estimator failed on the new view.
 */
async function compactOnce(
  context: RunContext,
  pending: PendingStep,
  reason: FitReason,
  current: Measured,
): Promise<
  | { readonly kind: 'unchanged' }
  | StoppedStep
  | { readonly kind: 'compacted'; readonly sourceHash: string; readonly adopted: Measured | undefined }
> {
  const manager = context.options.manager as ContextManager;
  const completion = holdCompletion(context);
  const result = await manager.fit(managerRequest(context, pending, reason, current, completion.emit));
  if (result.kind !== 'compacted') completion.release();
  if (result.kind === 'unchanged') return result;
  if (result.kind === 'stop')
    return stopBeforeCall(context, pending.step, 'tail_floor', result.message, current.budget);
  context.adopt(result);
  const adopted = await measure(context, context.build(pending.input));
  completion.release(adopted === undefined ? undefined : await keptVerbatim(context, pending.input, adopted));
  return { kind: 'compacted', sourceHash: result.sourceHash, adopted };
}

/** Asks the context manager for room until the request fits, through the no-progress guard. */
export async function compactUntilFit(
  context: RunContext,
  pending: PendingStep,
  start: Measured,
  reason: FitReason,
): Promise<Measured | StoppedStep> {
  const { step } = pending;
  let current = start;
  for (let why = reason; ; why = 'preflight') {
    const verdict = context.guard.beginAttempt();
    if (!verdict.ok) {
      context.options.emit({
        type: 'context.compaction.skipped',
        step,
        trigger: current.budget.overBudget ? 'over_budget' : 'threshold',
        reason: 'guard',
        message: verdict.message,
      });
      return current.budget.overBudget
        ? stopBeforeCall(context, step, verdict.reason, verdict.message, current.budget)
        : current;
    }
    const compacted = await compactOnce(context, pending, why, current);
    if (compacted.kind === 'unchanged') return current;
    if (compacted.kind === 'stop') return compacted;
    const next = compacted.adopted ?? current;
    const judged = context.guard.judge({
      sourceHash: compacted.sourceHash,
      tokensBefore: current.budget.estimate.tokens,
      tokensAfter: next.budget.estimate.tokens,
    });
    current = next;
    if (!judged.ok)
      return current.budget.overBudget
        ? stopBeforeCall(context, step, judged.reason, judged.message, current.budget)
        : current;
    if (!current.budget.overBudget) return current;
  }
}

/**
 * After a provider overflow: one call of the context manager, when the guard allows one. True
 * when it compacted a range it had not compacted before (the same messages compacted again
 * cannot make the retry fit).
 */
export async function compactAfterOverflow(
  context: RunContext,
  pending: PendingStep,
  current: Measured,
): Promise<boolean | StoppedStep> {
  if (context.options.manager === undefined || !context.guard.beginAttempt().ok) return false;
  const compacted = await compactOnce(context, pending, 'overflow', current);
  if (compacted.kind === 'stop') return compacted;
  return compacted.kind === 'compacted' && context.guard.recordSource(compacted.sourceHash);
}
