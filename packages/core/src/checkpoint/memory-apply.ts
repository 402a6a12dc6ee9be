import { CHECKPOINT_CAPS, type CheckpointCaps } from './caps.js';
import type { AcceptedMemoryUpdate } from './memory-update.js';
import type { CheckpointMemory, DecisionRecord, FactRecord, PlanStep } from './schema.js';

function compareText(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Removes the item `pick` chooses until at most `max` remain; `pick` returns an index. */
function evict<T>(items: readonly T[], max: number, pick: (items: readonly T[]) => number): T[] {
  const kept = [...items];
  while (kept.length > Math.max(0, max)) kept.splice(pick(kept), 1);
  return kept;
}

/** Index of the smallest item by `order`; the first one wins a tie. */
function smallestIndex<T>(items: readonly T[], order: (left: T, right: T) => number): number {
  let best = 0;
  for (let index = 1; index < items.length; index += 1) {
    if (order(items[index] as T, items[best] as T) < 0) best = index;
  }
  return best;
}

/** Ids of decisions that a later decision supersedes; the view hides them. */
export function supersededDecisionIds(decisions: readonly DecisionRecord[]): Set<string> {
  return new Set(decisions.flatMap((decision) => (decision.supersedes === null ? [] : [decision.supersedes])));
}

const oldestStep = (steps: readonly PlanStep[]): number =>
  Math.max(
    0,
    steps.findIndex((step) => step.done),
  );

const oldestFact = (facts: readonly FactRecord[]): number =>
  smallestIndex(facts, (left, right) => left.seq - right.seq || compareText(left.key, right.key));

function oldestDecision(decisions: readonly DecisionRecord[]): number {
  const hidden = supersededDecisionIds(decisions);
  const rank = (decision: DecisionRecord): number => (hidden.has(decision.id) ? 0 : 1);
  return smallestIndex(
    decisions,
    (left, right) => rank(left) - rank(right) || left.seq - right.seq || compareText(left.id, right.id),
  );
}

const oldestBySeq = <T extends { readonly seq: number }>(items: readonly T[]): number =>
  smallestIndex(items, (left, right) => left.seq - right.seq);

const byKey = (left: FactRecord, right: FactRecord): number => compareText(left.key, right.key);

function applyPlan(
  plan: readonly PlanStep[],
  update: Extract<AcceptedMemoryUpdate, { kind: 'plan' }>,
  caps: CheckpointCaps,
): PlanStep[] {
  const steps = plan.map((step) => ({ ...step }));
  for (const change of update.steps) {
    const existing = steps.find((step) => step.id === change.id);
    if (existing === undefined) {
      steps.push({ id: change.id, text: change.text ?? '', done: change.done ?? false, seq: update.seq });
      continue;
    }
    if (change.text !== null) existing.text = change.text;
    if (change.done !== null) existing.done = change.done;
    existing.seq = update.seq;
  }
  return evict(steps, caps.maxPlanSteps, oldestStep);
}

/**
 * `memory` with one accepted update applied. Pure: the input is not modified, and the same memory
 * and update always give the same result. Lists over their cap lose entries by the eviction rules
 * documented on `CheckpointCaps`. A fact replaces the fact with the same key; a rejected approach or
 * constraint with the same text as an earlier one replaces it.
 */
export function applyMemoryUpdate(
  memory: CheckpointMemory,
  update: AcceptedMemoryUpdate,
  caps: CheckpointCaps = CHECKPOINT_CAPS,
): CheckpointMemory {
  switch (update.kind) {
    case 'plan':
      return { ...memory, plan: applyPlan(memory.plan, update, caps) };
    case 'decision':
      return { ...memory, decisions: evict([...memory.decisions, update.record], caps.maxDecisions, oldestDecision) };
    case 'fact': {
      const facts = [...memory.facts.filter((fact) => fact.key !== update.record.key), update.record];
      return { ...memory, facts: evict(facts, caps.maxFacts, oldestFact).sort(byKey) };
    }
    case 'rejected_approach': {
      const same = (item: { readonly approach: string }): boolean => item.approach === update.record.approach;
      const approaches = [...memory.rejectedApproaches.filter((item) => !same(item)), update.record];
      return { ...memory, rejectedApproaches: evict(approaches, caps.maxRejectedApproaches, oldestBySeq) };
    }
    case 'constraint': {
      const constraints = [...memory.constraints.filter((item) => item.text !== update.record.text), update.record];
      return { ...memory, constraints: evict(constraints, caps.maxConstraints, oldestBySeq) };
    }
    case 'next_action':
      return { ...memory, nextAction: update.record };
  }
}

/**
 * `memory` brought within `caps` by the same eviction rules as `applyMemoryUpdate`, for memory
 * recorded under larger caps.
 */
export function capMemory(memory: CheckpointMemory, caps: CheckpointCaps = CHECKPOINT_CAPS): CheckpointMemory {
  return {
    plan: evict(memory.plan, caps.maxPlanSteps, oldestStep),
    decisions: evict(memory.decisions, caps.maxDecisions, oldestDecision),
    facts: evict(memory.facts, caps.maxFacts, oldestFact).sort(byKey),
    rejectedApproaches: evict(memory.rejectedApproaches, caps.maxRejectedApproaches, oldestBySeq),
    constraints: evict(memory.constraints, caps.maxConstraints, oldestBySeq),
    nextAction: memory.nextAction,
  };
}
