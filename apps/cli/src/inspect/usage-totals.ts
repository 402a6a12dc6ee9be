import { addCost, cacheHitRatio, type CostBreakdown } from '@forge/core/pricing';
import type { RunReport, TokenUsage, UsageTotals } from './report.js';
import type { TraceUsage } from './report-events.js';

/** Usage as the report keeps it: only the fields the trace had. */
export function usageOf(usage: TraceUsage | undefined): TokenUsage {
  if (usage === undefined) return {};
  const result: { -readonly [Key in keyof TokenUsage]: TokenUsage[Key] } = {};
  if (usage.inputTokens !== undefined) result.inputTokens = usage.inputTokens;
  if (usage.cacheReadTokens !== undefined) result.cacheReadTokens = usage.cacheReadTokens;
  if (usage.cacheWriteTokens !== undefined) result.cacheWriteTokens = usage.cacheWriteTokens;
  if (usage.outputTokens !== undefined) result.outputTokens = usage.outputTokens;
  if (usage.reasoningTokens !== undefined) result.reasoningTokens = usage.reasoningTokens;
  return result;
}

/** Adds usage field by field; a field stays absent only when neither side has it. */
export function addTokenUsage(total: TokenUsage, step: TokenUsage): TokenUsage {
  const sum = (left: number | undefined, right: number | undefined) =>
    left === undefined && right === undefined ? undefined : (left ?? 0) + (right ?? 0);
  return usageOf({
    inputTokens: sum(total.inputTokens, step.inputTokens),
    cacheReadTokens: sum(total.cacheReadTokens, step.cacheReadTokens),
    cacheWriteTokens: sum(total.cacheWriteTokens, step.cacheWriteTokens),
    outputTokens: sum(total.outputTokens, step.outputTokens),
    reasoningTokens: sum(total.reasoningTokens, step.reasoningTokens),
  });
}

export function hitRatioOf(usage: TokenUsage): number | undefined {
  return cacheHitRatio({ inputTokens: usage.inputTokens, cacheReadTokens: usage.cacheReadTokens });
}

/** Adds a cost to a running total that may not have started. */
export function addOptionalCost(
  total: CostBreakdown | undefined,
  cost: CostBreakdown | undefined,
): CostBreakdown | undefined {
  if (cost === undefined) return total;
  return total === undefined ? cost : addCost(total, cost);
}

/** Usage and cost over several runs (a session). */
export function totalsOf(runs: readonly Pick<RunReport, 'usage' | 'cost' | 'unpricedSteps'>[]): UsageTotals {
  let usage: TokenUsage = {};
  let cost: CostBreakdown | undefined;
  let unpricedSteps = 0;
  for (const run of runs) {
    usage = addTokenUsage(usage, run.usage);
    cost = addOptionalCost(cost, run.cost);
    unpricedSteps += run.unpricedSteps;
  }
  const ratio = hitRatioOf(usage);
  return {
    usage,
    ...(ratio === undefined ? {} : { cacheHitRatio: ratio }),
    ...(cost === undefined ? {} : { cost }),
    unpricedSteps,
  };
}
