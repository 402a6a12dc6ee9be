import { InvalidInputError } from '../errors.js';

/**
 * How the runtime treats context pressure. Every mode sends every stored message before the
 * current request, either verbatim or inside the active checkpoint (mode `compact` only): there
 * are no holes. See `selectRequestView` for the rule.
 * - `off`: the whole conversation, no checkpoint, no compaction, no warnings; budgets are still
 *   measured and reported. When the whole request cannot fit, the run stops `limit_reached`
 *   before the provider call.
 * - `warn`: what `off` sends, plus a warning past `warnAtRatio`.
 * - `shadow`: what `warn` sends, plus checkpoints built and validated (never installed) exactly
 *   where `compact` would make them, to measure compaction before trusting it.
 * - `compact`: the active checkpoint and all history after it, verbatim, while the request stays
 *   under `compactAtRatio`; past it, older turns become a checkpoint and the request comes back
 *   down to `compactTargetRatio`. The CLI's default; `runAgent` alone defaults to `warn`.
 */
export type ContextMode = 'off' | 'warn' | 'shadow' | 'compact';

export const CONTEXT_MODES: readonly ContextMode[] = ['off', 'warn', 'shadow', 'compact'];

/** The budget settings a run works with. Every field is a number a user can reason about. */
export interface ContextPolicy {
  readonly mode: ContextMode;
  /** Output tokens kept free for the model's answer when the request does not say how many. */
  readonly reservedOutputTokens: number;
  /**
   * Safety margin for provider framing and estimation error. Not added to the output reserve:
   * the larger of the two is subtracted from the window, once.
   */
  readonly bufferTokens: number;
  /**
   * Tokens of recent history a compaction keeps verbatim after the new checkpoint (shrunk only
   * when the request must come down to its target). Not a cap on what a request sends.
   */
  readonly recentTailTokens: number;
  /** Target size of a generated checkpoint summary. */
  readonly summaryTargetTokens: number;
  /** A warning is raised once the estimate passes this share of the available input budget. */
  readonly warnAtRatio: number;
  /** Mode `compact`: a request estimated above this share of the available input is compacted first. */
  readonly compactAtRatio: number;
  /** Mode `compact`: the share of the available input a compaction brings the request back down to. Below `compactAtRatio`. */
  readonly compactTargetRatio: number;
  /**
   * Mode `compact`: the share of the compaction target (`compactTargetTokens`) that the newest
   * distinct tool outputs keep verbatim when older outputs are projected (0–1; 0 protects none).
   */
  readonly protectedToolOutputRatio: number;
  /** Window assumed for a model no capability table or configuration knows. */
  readonly fallbackContextWindowTokens: number;
}

/**
 * Defaults of the library: mode `warn` (a bare `runAgent` has no session to compact; the CLI's
 * configuration defaults to `compact`); 4,096 output and 8,192 buffer tokens (8,192 reserved);
 * warning at 80 % of the available input; compaction past 85 %, down to 50 %; the newest tool
 * outputs protected from projection up to a quarter of that target (see docs/context-management.md
 * for why).
 */
export const DEFAULT_CONTEXT_POLICY: ContextPolicy = Object.freeze({
  mode: 'warn',
  reservedOutputTokens: 4096,
  bufferTokens: 8192,
  recentTailTokens: 12_000,
  summaryTargetTokens: 1200,
  warnAtRatio: 0.8,
  compactAtRatio: 0.85,
  compactTargetRatio: 0.5,
  protectedToolOutputRatio: 0.25,
  fallbackContextWindowTokens: 32_768,
});

const tokenFields = [
  'reservedOutputTokens',
  'bufferTokens',
  'recentTailTokens',
  'summaryTargetTokens',
  'fallbackContextWindowTokens',
] as const;

/**
 * Fills the gaps of `partial` from {@link DEFAULT_CONTEXT_POLICY} and checks every value: token
 * counts are whole numbers ≥ 0 (the fallback window ≥ 1), the ratios are in (0, 1], and the
 * compaction target is below the compaction threshold.
 */
export function resolveContextPolicy(partial: Partial<ContextPolicy> = {}): ContextPolicy {
  const policy: ContextPolicy = { ...DEFAULT_CONTEXT_POLICY, ...withoutUndefined(partial) };
  if (!CONTEXT_MODES.includes(policy.mode)) {
    throw new InvalidInputError({
      message: `context.mode must be one of ${CONTEXT_MODES.join(', ')}, got ${JSON.stringify(policy.mode)}.`,
    });
  }
  for (const field of tokenFields) {
    const value = policy[field];
    const minimum = field === 'fallbackContextWindowTokens' ? 1 : 0;
    if (!Number.isSafeInteger(value) || value < minimum) {
      throw new InvalidInputError({
        message: `context.${field} must be a whole number of tokens ≥ ${minimum}, got ${String(value)}.`,
      });
    }
  }
  for (const field of ['warnAtRatio', 'compactAtRatio', 'compactTargetRatio'] as const) {
    const value = policy[field];
    if (!(value > 0 && value <= 1)) {
      throw new InvalidInputError({
        message: `context.${field} must be greater than 0 and at most 1, got ${String(value)}.`,
      });
    }
  }
  if (!(policy.protectedToolOutputRatio >= 0 && policy.protectedToolOutputRatio <= 1)) {
    throw new InvalidInputError({
      message: `context.protectedToolOutputRatio must be between 0 and 1, got ${String(policy.protectedToolOutputRatio)}.`,
    });
  }
  if (policy.compactTargetRatio >= policy.compactAtRatio) {
    throw new InvalidInputError({
      message:
        `context.compactTargetRatio (${String(policy.compactTargetRatio)}) must be below context.compactAtRatio (${String(policy.compactAtRatio)}): ` +
        'a compaction has to bring the request back under the point where it starts, or it would compact again on the next step.',
    });
  }
  return policy;
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as Partial<T>;
}
