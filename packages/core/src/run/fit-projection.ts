import type { ContextBudget } from '../budget/budget.js';
import type { CompactionTrigger } from '../compaction/events.js';
import { projectionGate } from '../compaction/projection-gate.js';
import { chooseProjection, keptVerbatimTokens, protectedToolOutputTokens } from '../compaction/projection-plan.js';
import { projectionCandidates } from '../compaction/tool-output-projection.js';
import type { ModelRequest } from '../model/adapter.js';
import { budgetRequest } from '../view/request-view.js';
import type { PendingStep, RunContext, StepInput } from './prepare-request.js';

/** Rounds of picking and re-estimating one projection may take (the per-output counts rarely fall short). */
const MAX_PROJECTION_ROUNDS = 3;

/** A request and its budget, measured without emitting anything. */
export interface Measured {
  readonly request: ModelRequest;
  readonly budget: ContextBudget;
}

/** Estimates without emitting anything; undefined when the estimator fails (preflight reports it). */
export async function measure(context: RunContext, request: ModelRequest): Promise<Measured | undefined> {
  try {
    return { request, budget: await budgetRequest(context.options.model, request, context.options.policy) };
  } catch {
    return undefined;
  }
}

/**
 * Projects just enough older completed tool outputs to bring the request under its compaction
 * target (see `chooseProjection` for the order and the protected newest outputs); undefined
 * when none is projected. Savings come from per-output counts made once per message; one full
 * estimate confirms them (a second round picks more if the counts fell short). Protected
 * outputs go too only when the request would otherwise not fit at all: a request over budget
 * cannot be sent, and a checkpoint cannot shrink the running turn, where such outputs usually are.
 */
export async function projectToolOutputs(
  context: RunContext,
  pending: PendingStep,
  current: Measured,
  trigger: CompactionTrigger,
): Promise<Measured | undefined> {
  const { step, input, cache } = pending;
  const { options, projected } = context;
  const view = context.projectionView(input);
  let remaining = projectionCandidates(view, options.projection).filter(
    (candidate) => !projected.has(candidate.toolCallId),
  );
  if (remaining.length === 0) return undefined;
  const sizes = await context.sizes.of(
    view,
    remaining.map((candidate) => candidate.messageIndex),
  );
  const target = current.budget.compactTargetTokens;
  let protectedTokens = protectedToolOutputTokens(options.policy, current.budget);
  const chosen: string[] = [];
  let next = current;
  for (let round = 0; round < MAX_PROJECTION_ROUNDS && next.budget.estimate.tokens > target && remaining.length > 0;) {
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
      projected.add(id);
      chosen.push(id);
    }
    remaining = remaining.filter((candidate) => !projected.has(candidate.toolCallId));
    next = (await measure(context, context.build(input))) ?? next;
  }
  if (chosen.length === 0) return undefined;
  const tokensBefore = current.budget.estimate.tokens;
  const tokensAfter = next.budget.estimate.tokens;
  // Past the threshold, the request still fits: project only when the priced gate says it pays.
  if (trigger === 'threshold' && !current.budget.overBudget) {
    const gate = projectionGate(options.model, current.budget.estimate, tokensAfter, cache);
    if (!gate.compact) {
      for (const id of chosen) projected.delete(id);
      options.emit({
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
  options.emit({
    type: 'context.compaction.completed',
    step,
    trigger: trigger === 'threshold' && current.budget.overBudget ? 'over_budget' : trigger,
    strategy: 'tool-output-projection',
    mode: options.policy.mode,
    installed: true,
    reused: false,
    tokensBefore,
    tokensAfter,
    reclaimedTokens: tokensBefore - tokensAfter,
    keptVerbatimTokens: await keptVerbatim(context, input, next),
    projectedOutputs: chosen.length,
    projectedToolCallIds: chosen,
  });
  return next;
}

/** Tokens of history and continuation `measured` sends verbatim: its estimate less the projected outputs it carries. */
export async function keptVerbatim(context: RunContext, input: StepInput, measured: Measured): Promise<number> {
  const { projected } = context;
  if (projected.size === 0) return keptVerbatimTokens(measured.budget.estimate);
  const view = context.projectionView(input);
  const indexes = view.flatMap((message, index) =>
    message.role === 'tool' && message.content.some((part) => projected.has(part.toolCallId)) ? [index] : [],
  );
  const sizes = await context.sizes.of(view, indexes);
  let total = 0;
  for (const id of projected) total += sizes.get(id)?.projected ?? 0;
  return keptVerbatimTokens(measured.budget.estimate, total);
}
