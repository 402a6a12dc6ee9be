import type { PriceSheet, Usage } from '@forge/core';
import { sessionTotals } from '@forge/persistence';
import type { SessionCost } from '@forge/core/budget';
import { addCost, cacheHitRatio, type CostBreakdown } from '@forge/core/pricing';
import { buildInspectReport } from '../inspect/build-report.js';
import { buildSessionSummary } from '../inspect/build-session-summary.js';
import { resolveTarget } from '../inspect/resolve-target.js';

/** What the traces of a session say it has cost so far (what `forge inspect` reads): undefined when nothing of it was priced (or it has no runs yet). */
export async function sessionCostFromTraces(
  forgeHome: string,
  sessionId: string,
): Promise<SessionCostCounts | undefined> {
  let report;
  try {
    const resolved = await resolveTarget({
      argument: sessionId,
      last: false,
      home: forgeHome,
      cwd: forgeHome,
      workspaceRoot: forgeHome,
    });
    // A session's totals from its run index, which agrees with its traces and reads only those that changed.
    report =
      resolved.target.kind === 'session'
        ? (await buildSessionSummary(resolved, {})).report
        : await buildInspectReport(resolved);
  } catch {
    return undefined;
  }
  const totals = report.totals;
  if (totals?.cost === undefined) return undefined;
  return {
    cost: totals.cost,
    inputTokens: totals.usage.inputTokens ?? 0,
    cachedTokens: totals.usage.cacheReadTokens ?? 0,
    unpricedSteps: totals.unpricedSteps,
  };
}

/**
 * What a session has cost so far, from the running totals its index keeps as runs end: a few
 * small reads whatever the session's size or number of runs. A session with runs ended by a Forge
 * that did not record costs (or a v1 session) is priced from its traces instead, as before.
 */
export async function sessionCostSoFar(forgeHome: string, sessionId: string): Promise<SessionCostCounts | undefined> {
  let totals;
  try {
    totals = await sessionTotals(forgeHome, sessionId);
  } catch {
    return sessionCostFromTraces(forgeHome, sessionId);
  }
  if (totals.legacyRuns > 0) return sessionCostFromTraces(forgeHome, sessionId);
  if (totals.cost === undefined) return undefined;
  return {
    cost: totals.cost,
    inputTokens: totals.inputTokens,
    cachedTokens: totals.cachedTokens,
    unpricedSteps: totals.unpricedSteps,
  };
}

/** A session's priced cost with the token counts its cache-hit ratio is made of. */
export interface SessionCostCounts {
  readonly cost: CostBreakdown;
  readonly inputTokens: number;
  readonly cachedTokens: number;
  readonly unpricedSteps: number;
}

/** The form `forge context` and `/context` show. */
export function toSessionCost(counts: SessionCostCounts): SessionCost {
  const ratio = cacheHitRatio({ inputTokens: counts.inputTokens, cacheReadTokens: counts.cachedTokens });
  return {
    cost: counts.cost,
    ...(ratio === undefined ? {} : { cacheHitRatio: ratio }),
    ...(counts.unpricedSteps === 0 ? {} : { unpricedSteps: counts.unpricedSteps }),
  };
}

/** The fields of the run events the tracker reads. */
interface CostFields {
  readonly type: string;
  readonly prices?: unknown;
  readonly cost?: unknown;
  readonly usage?: unknown;
}

/**
 * The REPL's running cost of its session: seeded from the session's traces when a session starts,
 * then added to from each priced step as it completes. It also keeps the latest request's usage:
 * what the provider still caches for the next request (cleared when the prefix changes: a
 * compaction or a model switch), which the next request's price assumes.
 */
export class SessionCostTracker {
  private cost: CostBreakdown | undefined;
  private inputTokens = 0;
  private cachedTokens = 0;
  private unpricedSteps = 0;
  private prices: PriceSheet | undefined;
  private last: { readonly input: number; readonly output: number } | undefined;

  start(seed: SessionCostCounts | undefined): void {
    this.cost = seed?.cost;
    this.inputTokens = seed?.inputTokens ?? 0;
    this.cachedTokens = seed?.cachedTokens ?? 0;
    this.unpricedSteps = seed?.unpricedSteps ?? 0;
    this.forgetPrefix();
  }

  /** The next request will not start like the last one (compaction, another model). */
  forgetPrefix(): void {
    this.prices = undefined;
    this.last = undefined;
  }

  observe(event: CostFields): void {
    if (event.type === 'run.started') this.prices = isPriceSheet(event.prices) ? event.prices : undefined;
    if (event.type !== 'model.step.completed') return;
    const usage = (typeof event.usage === 'object' && event.usage !== null ? event.usage : {}) as Partial<Usage>;
    const input = usage.inputTokens;
    const output = usage.outputTokens;
    if (typeof input === 'number') {
      this.inputTokens += input;
      this.cachedTokens += typeof usage.cacheReadTokens === 'number' ? usage.cacheReadTokens : 0;
    }
    if (isCost(event.cost)) this.cost = this.cost === undefined ? event.cost : addCost(this.cost, event.cost);
    else if (this.prices !== undefined) this.unpricedSteps += 1;
    this.last = typeof input === 'number' && typeof output === 'number' ? { input, output } : undefined;
  }

  /** The session's cost so far, when anything of it was priced. */
  get soFar(): SessionCost | undefined {
    if (this.cost === undefined) return undefined;
    return toSessionCost({
      cost: this.cost,
      inputTokens: this.inputTokens,
      cachedTokens: this.cachedTokens,
      unpricedSteps: this.unpricedSteps,
    });
  }

  /**
   * Input tokens of the last request sent, which the provider can still serve from its cache to
   * the next one; 0 once the prefix changed (a compaction, another model) or before any request.
   */
  get cachedPrefixTokens(): number {
    return this.last?.input ?? 0;
  }
}

function isCost(value: unknown): value is CostBreakdown {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { currency?: unknown }).currency === 'USD' &&
    typeof (value as { total?: unknown }).total === 'number'
  );
}

function isPriceSheet(value: unknown): value is PriceSheet {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { inputPerMillion?: unknown }).inputPerMillion === 'number' &&
    typeof (value as { outputPerMillion?: unknown }).outputPerMillion === 'number'
  );
}
