import type { PriceSheet } from '../pricing/price-sheet.js';
import { priceUsage } from '../pricing/price-usage.js';
import type { PromptCacheRules } from '../pricing/prompt-cache.js';
import { cachedInputTokens, priceInput } from '../pricing/request-cost.js';
import { COST_GATE_HORIZON_TURNS, evaluateCostGate, type CostGateDecision, type CostGateInput } from './cost-gate.js';

/**
 * Tokens whose fresh price the priced gate adds to every compaction's cost: about one file the
 * agent may have to read again because the checkpoint carries a summary of it, not its text.
 */
const QUALITY_RISK_TOKENS = 2_000;

/** The money behind a priced decision, in US dollars. */
export interface PricedGateNumbers {
  readonly currency: 'USD';
  /** Requests over which the saving is counted (the gate's N). */
  readonly horizonRequests: number;
  /** `cold`: the provider's cache lifetime has passed since the last request, so nothing is cached and nothing is lost. */
  readonly cache: 'warm' | 'cold';
  /** Milliseconds since the conversation's last request, when known. */
  readonly idleMs?: number;
  /** The provider's cache lifetime, when its rules are known. */
  readonly lifetimeMs?: number;
  /** Tokens of the request the cache holds now (0 when cold). */
  readonly cachedBeforeTokens: number;
  /** Instructions and tool schemas: the prefix a compaction leaves in place. */
  readonly stablePrefixTokens: number;
  /** The next N requests without compacting. */
  readonly keepUsd: number;
  /** The next N requests after compacting, the first one writing its new prefix afresh. */
  readonly compactedUsd: number;
  /** What the reclaimed tokens would have cost over the horizon, the cache staying as warm as it is. */
  readonly savingUsd: number;
  /** The cached prefix after the stable part, re-priced from cached to fresh input: 0 when the cache is cold. */
  readonly invalidationUsd: number;
  /** The compactor's call (0 for `forge-state`, which calls no model). */
  readonly compactorUsd: number;
  /** {@link QUALITY_RISK_TOKENS} priced as input not read from the cache. */
  readonly riskAllowanceUsd: number;
  /** saving − invalidation − compactor − risk allowance: the gate compacts when it is positive. */
  readonly netUsd: number;
}

export interface CompactionGateInput extends CostGateInput {
  /** Estimated tokens of the request after the compaction. */
  readonly afterTokens: number;
  /** The active model's prices: without them the gate compares tokens. */
  readonly prices?: PriceSheet;
  /**
   * The compactor model, when one other than the active model is called: its prices, or none
   * when they are unknown (the gate then compares tokens). Without it the compactor's call, if
   * any, is priced with `prices`.
   */
  readonly compactor?: { readonly prices?: PriceSheet | undefined };
  readonly promptCache?: PromptCacheRules;
  /** Milliseconds since the conversation's last request reached the provider. */
  readonly idleMs?: number;
  /**
   * The request does not fit (or the provider refused it): the compaction happens whatever the
   * numbers say; they are still computed and recorded.
   */
  readonly required?: boolean;
}

/**
 * Prices keeping the request against compacting it over the next N requests. Without compacting,
 * the first request reads what the cache holds now (everything sent before, when warm) and later
 * ones read the whole request. After compacting, the first request reads only the stable prefix
 * (instructions and tool schemas: the checkpoint comes right after them) and later ones read the
 * whole smaller request: requests after a compaction are cached again. Output costs the same
 * either way and is left out. Every price comes from `priceUsage`.
 */
function pricedGateNumbers(
  input: CompactionGateInput & { readonly prices: PriceSheet },
  compactorTokens: { readonly input: number; readonly output: number },
): PricedGateNumbers {
  const { prices, before, promptCache: rules } = input;
  const horizon = input.horizonTurns ?? COST_GATE_HORIZON_TURNS;
  const beforeTokens = Object.values(before).reduce((total, tokens) => total + tokens, 0);
  const afterTokens = Math.max(0, input.afterTokens);
  const cold = rules !== undefined && input.idleMs !== undefined && input.idleMs > rules.lifetimeMs;
  const stable = before.instructions + before.toolSchemas;
  // Everything before the current request went out in the previous request, so a warm cache holds
  // it, unless the checkpoint's text changed since: then only what comes before the checkpoint.
  const warmPrefix =
    input.checkpointChanged === true
      ? stable
      : Math.max(stable + before.checkpoint + before.history, input.cacheReadTokens ?? 0);
  const cachedBefore = cold ? 0 : cachedInputTokens(warmPrefix, beforeTokens, rules);
  const stableCached = cold ? 0 : cachedInputTokens(stable, afterTokens, rules);
  const later = horizon - 1;
  const keepUsd =
    priceInput(prices, beforeTokens, cachedBefore) +
    later * priceInput(prices, beforeTokens, cachedInputTokens(beforeTokens, beforeTokens, rules));
  const firstAfter = priceInput(prices, afterTokens, stableCached);
  const compactedUsd =
    firstAfter + later * priceInput(prices, afterTokens, cachedInputTokens(afterTokens, afterTokens, rules));
  // The first request after compacting, had the cache kept as much of it as it keeps now.
  const undisturbed = priceInput(
    prices,
    afterTokens,
    Math.max(stableCached, cachedInputTokens(cachedBefore, afterTokens, rules)),
  );
  const invalidationUsd = Math.max(0, firstAfter - undisturbed);
  const savingUsd = keepUsd - compactedUsd + invalidationUsd;
  const compactorSheet = input.compactor?.prices ?? prices;
  const compactorUsd =
    compactorTokens.input + compactorTokens.output === 0
      ? 0
      : (priceUsage(
          {
            inputTokens: compactorTokens.input,
            cacheReadTokens: 0,
            cacheWriteTokens: undefined,
            outputTokens: compactorTokens.output,
            reasoningTokens: undefined,
          },
          compactorSheet,
        )?.total ?? 0);
  const riskAllowanceUsd = priceInput(prices, QUALITY_RISK_TOKENS, 0);
  return {
    currency: 'USD',
    horizonRequests: horizon,
    cache: cold ? 'cold' : 'warm',
    ...(input.idleMs === undefined ? {} : { idleMs: input.idleMs }),
    ...(rules === undefined ? {} : { lifetimeMs: rules.lifetimeMs }),
    cachedBeforeTokens: cachedBefore,
    stablePrefixTokens: stable,
    keepUsd,
    compactedUsd,
    savingUsd,
    invalidationUsd,
    compactorUsd,
    riskAllowanceUsd,
    netUsd: savingUsd - invalidationUsd - compactorUsd - riskAllowanceUsd,
  };
}

/**
 * The gate every automatic compaction passes (see docs/context-management.md, "The cost gate").
 * With prices it compacts when the priced saving over the horizon exceeds the invalidated cache,
 * the compactor and the quality-risk allowance; without prices for the model (or for a compactor
 * it calls) it falls back to the token comparison of {@link evaluateCostGate} and says so in
 * `note`. A required compaction (the request does not fit) always compacts.
 */
export function evaluateCompactionGate(input: CompactionGateInput): CostGateDecision {
  const tokens = evaluateCostGate(input);
  const required = input.required === true;
  const byTokens = (unpriced: string): CostGateDecision => ({
    ...tokens,
    basis: 'tokens',
    note: `${unpriced}, so the gate compared tokens`,
    ...(required ? { compact: true, required: true } : {}),
  });
  const { prices } = input;
  if (prices === undefined) return byTokens('the model has no prices');
  if (input.compactor !== undefined && input.compactor.prices === undefined)
    return byTokens('the compactor model has no prices');
  const priced = pricedGateNumbers(
    { ...input, prices },
    { input: input.compactorInputTokens, output: input.compactorOutputTokens },
  );
  return {
    ...tokens,
    basis: 'priced',
    compact: required || priced.netUsd > 0,
    priced,
    ...(required ? { required: true } : {}),
  };
}
