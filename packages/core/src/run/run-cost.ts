import type { Usage } from '../model/adapter.js';
import type { PriceSheet } from '../pricing/price-sheet.js';
import { addCost, cacheHitRatio, priceUsage, ZERO_COST, type CostBreakdown } from '../pricing/price-usage.js';

/** What a run's end events and result say about its cost. A type alias, so events built from it stay plain JSON records. */
export type RunCostSummary = {
  /** The run's cost, when its model has prices. */
  readonly cost?: CostBreakdown;
  /** Steps of a priced model whose usage the provider did not report in full: they are not in `cost`. */
  readonly unpricedSteps?: number;
  /** Input served from the prompt cache over all input, 0–1. */
  readonly cacheHitRatio?: number;
};

/** Adds up the priced cost of a run's steps. */
export class RunCostMeter {
  private readonly prices: PriceSheet | undefined;
  private total: CostBreakdown = ZERO_COST;
  private unpriced = 0;

  constructor(prices: PriceSheet | undefined) {
    this.prices = prices;
  }

  /** Prices one completed step; undefined for an unpriced model or incomplete usage. */
  step(usage: Usage): CostBreakdown | undefined {
    if (this.prices === undefined) return undefined;
    const cost = priceUsage(usage, this.prices);
    if (cost === undefined) this.unpriced += 1;
    else this.total = addCost(this.total, cost);
    return cost;
  }

  summary(usage: Usage): RunCostSummary {
    const ratio = cacheHitRatio(usage);
    return {
      ...(this.prices === undefined ? {} : { cost: this.total }),
      ...(this.unpriced === 0 ? {} : { unpricedSteps: this.unpriced }),
      ...(ratio === undefined ? {} : { cacheHitRatio: ratio }),
    };
  }
}
