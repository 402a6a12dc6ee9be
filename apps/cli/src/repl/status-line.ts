import type { ContextMode } from '@forge/core';
import { formatDollars } from '@forge/core/pricing';
import type { Style } from '../output/style.js';
import { SessionCostTracker } from '../session/session-cost.js';

/** The context use of the latest request, from its `context.budgeted` event. */
export interface ContextUse {
  readonly usedTokens: number;
  readonly availableInputTokens: number;
  /** False when the figure is an estimate (shown with `~`). */
  readonly exact: boolean;
  /** Set when the figure is the engine's own report (Codex's `thread/tokenUsage/updated`), not Forge's measure. */
  readonly reportedBy?: 'codex';
  /** Input tokens the engine reported served from its provider's cache, when it reported them. */
  readonly cachedInputTokens?: number;
}

/** The fields of a `context.budgeted` event (or the Codex engine's `codex.context.budgeted`, which estimates only the wrapper Forge sends) the footer reads. */
interface BudgetedFields {
  readonly type: string;
  readonly availableInputTokens?: unknown;
  readonly estimate?: { readonly tokens?: unknown; readonly confidence?: unknown };
  /** `run.started`: the price sheet, for the session's cost. */
  readonly prices?: unknown;
  /** `model.step.completed`: the step's cost. */
  readonly cost?: unknown;
  /** `codex.usage.recorded`: what Codex reported for its latest model call (see `CodexReport`); `model.step.completed`: the step's usage. */
  readonly usage?: unknown;
}

/** The part of a `codex.usage.recorded` event's usage the footer reads. */
interface CodexReport {
  readonly last?: {
    readonly inputTokens?: unknown;
    readonly cachedInputTokens?: unknown;
    readonly outputTokens?: unknown;
  };
  readonly modelContextWindow?: unknown;
}

/**
 * Keeps the figures of the latest `context.budgeted` event of the running session. When the session,
 * its checkpoint or the model changes, the REPL measures the next request instead (`measured`),
 * since the old figures no longer describe it; `reset` when nothing can be measured.
 */
export class ContextUseTracker {
  private latest: ContextUse | undefined;
  private latestWrapper: number | undefined;
  private nextInput: number | undefined;
  /** The session's cost so far and the next request's, from the same events. */
  readonly costs = new SessionCostTracker();

  get current(): ContextUse | undefined {
    return this.latest;
  }

  /**
   * The next request's input cost, as `/context` prices it (`measureNextRequest`): the one figure
   * both show, taken whenever the REPL measures the next request (after each turn and each change).
   */
  get nextInputCost(): number | undefined {
    return this.nextInput;
  }

  /** Takes the price of a measured next request; undefined when it could not be priced. */
  priced(cost: { readonly warmInput: number } | undefined): void {
    this.nextInput = cost?.warmInput;
  }

  /** Forge's estimate of the wrapper the latest Codex turn sent (its view, not Codex's own prompt). */
  get wrapperTokens(): number | undefined {
    return this.latestWrapper;
  }

  observe(event: BudgetedFields): void {
    this.costs.observe(event);
    if (event.type === 'codex.usage.recorded') {
      const report = (typeof event.usage === 'object' && event.usage !== null ? event.usage : {}) as CodexReport;
      const last = report.last;
      const window = report.modelContextWindow;
      if (typeof last?.inputTokens !== 'number' || typeof last.outputTokens !== 'number' || typeof window !== 'number')
        return;
      this.latest = {
        usedTokens: last.inputTokens + last.outputTokens,
        availableInputTokens: window,
        exact: true,
        reportedBy: 'codex',
        ...(typeof last.cachedInputTokens === 'number' ? { cachedInputTokens: last.cachedInputTokens } : {}),
      };
      return;
    }
    const used = event.estimate?.tokens;
    if (event.type === 'codex.context.budgeted') {
      if (typeof used === 'number') this.latestWrapper = used;
      return;
    }
    if (event.type !== 'context.budgeted') return;
    const available = event.availableInputTokens;
    if (typeof used !== 'number' || typeof available !== 'number') return;
    this.latest = { usedTokens: used, availableInputTokens: available, exact: event.estimate?.confidence === 'exact' };
  }

  /** Takes the figures of a measured next request (after `/compact`, `/resume`, `/model`), as `/context` reports them. */
  measured(budget: {
    readonly estimate: { readonly tokens: number; readonly confidence: string };
    readonly availableInputTokens: number;
  }): void {
    this.latest = {
      usedTokens: budget.estimate.tokens,
      availableInputTokens: budget.availableInputTokens,
      exact: budget.estimate.confidence === 'exact',
    };
  }

  /** The next request will differ from the latest (a compaction, another model): its figures no longer apply. */
  reset(): void {
    this.latest = undefined;
    this.latestWrapper = undefined;
    this.nextInput = undefined;
    this.costs.forgetPrefix();
  }
}

/** 950 → `950`, 12_345 → `12.3k`, 1_050_000 → `1.05M`. */
export function compactTokens(tokens: number): string {
  if (tokens < 1000) return String(tokens);
  if (tokens < 1_000_000) return `${Number((tokens / 1000).toFixed(tokens < 100_000 ? 1 : 0))}k`;
  return `${Number((tokens / 1_000_000).toFixed(2))}M`;
}

/**
 * The REPL footer: model, context mode and context use, e.g.
 * `openai:gpt-5 · mode warn · context ~12.3k / 262k (5%) · $0.042 so far · next ~$0.0040`. `~`
 * marks an estimate; before the first request of a session the use is unknown (`context –`). On
 * the Codex engine the figure is Codex's own report of its latest model call against the window it
 * counts, so labelled. The cost appears once a priced step completed; the next request's input
 * cost is the one `/context` shows (`nextInputCost`), assuming the provider still caches the last request.
 */
export function renderStatusLine(options: {
  readonly model: string;
  readonly mode: ContextMode | undefined;
  readonly use: ContextUse | undefined;
  readonly style: Style;
  readonly costs?: SessionCostTracker;
  /** The next request's input cost (`ContextUseTracker.nextInputCost`). */
  readonly nextInputCost?: number | undefined;
}): string {
  const { use, style } = options;
  const parts = [options.model];
  if (options.mode !== undefined) parts.push(`mode ${options.mode}`);
  if (use === undefined) {
    parts.push('context –');
  } else {
    const share = use.availableInputTokens === 0 ? 100 : Math.round((use.usedTokens / use.availableInputTokens) * 100);
    const figure =
      `context ${use.exact ? '' : '~'}${compactTokens(use.usedTokens)} / ${compactTokens(use.availableInputTokens)} (${share}%)` +
      (use.reportedBy === 'codex' ? ' reported by Codex' : '');
    parts.push(share >= 100 ? style.red(figure) : share >= 80 ? style.yellow(figure) : figure);
  }
  const soFar = options.costs?.soFar;
  if (soFar !== undefined) parts.push(`${formatDollars(soFar.cost.total)} so far`);
  const next = options.nextInputCost;
  if (next !== undefined) parts.push(`next ~${formatDollars(next)}`);
  return `${style.dim('─')} ${parts.join(style.dim(' · '))}\n`;
}
