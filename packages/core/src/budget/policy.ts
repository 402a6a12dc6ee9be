import { InvalidInputError } from '../errors.js';

/**
 * How the runtime treats context pressure.
 * - `off`: no decision is taken; budgets are still measured and reported, provider usage too.
 * - `warn`: measure before every step, warn past the threshold, stop only when mandatory context
 *   cannot fit. Never changes what is sent.
 * - `shadow`: like `warn`; compaction is planned but not applied once the planner exists.
 * - `compact`: like `warn`, and compaction may rewrite the active view once it exists. Opt-in.
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
  /** Tokens the verbatim recent tail may use when a checkpoint replaces older history. */
  readonly recentTailTokens: number;
  /** Target size of a generated checkpoint summary. */
  readonly summaryTargetTokens: number;
  /** A warning is raised once the estimate passes this share of the available input budget. */
  readonly warnAtRatio: number;
  /** Window assumed for a model no capability table or configuration knows. */
  readonly fallbackContextWindowTokens: number;
}

/** Defaults: warn mode; 4,096 output and 8,192 buffer tokens (8,192 reserved); warning at 80 %. */
export const DEFAULT_CONTEXT_POLICY: ContextPolicy = Object.freeze({
  mode: 'warn',
  reservedOutputTokens: 4096,
  bufferTokens: 8192,
  recentTailTokens: 12_000,
  summaryTargetTokens: 1200,
  warnAtRatio: 0.8,
  fallbackContextWindowTokens: 32_768,
});

const tokenFields = ['reservedOutputTokens', 'bufferTokens', 'recentTailTokens', 'summaryTargetTokens', 'fallbackContextWindowTokens'] as const;

/**
 * Fills the gaps of `partial` from {@link DEFAULT_CONTEXT_POLICY} and checks every value: token
 * counts are whole numbers ≥ 0 (the fallback window ≥ 1), the ratio is in (0, 1].
 */
export function resolveContextPolicy(partial: Partial<ContextPolicy> = {}): ContextPolicy {
  const policy: ContextPolicy = { ...DEFAULT_CONTEXT_POLICY, ...withoutUndefined(partial) };
  if (!CONTEXT_MODES.includes(policy.mode)) {
    throw new InvalidInputError({ message: `context.mode must be one of ${CONTEXT_MODES.join(', ')}, got ${JSON.stringify(policy.mode)}.` });
  }
  for (const field of tokenFields) {
    const value = policy[field];
    const minimum = field === 'fallbackContextWindowTokens' ? 1 : 0;
    if (!Number.isSafeInteger(value) || value < minimum) {
      throw new InvalidInputError({ message: `context.${field} must be a whole number of tokens ≥ ${minimum}, got ${String(value)}.` });
    }
  }
  if (!(policy.warnAtRatio > 0 && policy.warnAtRatio <= 1)) {
    throw new InvalidInputError({ message: `context.warnAtRatio must be greater than 0 and at most 1, got ${String(policy.warnAtRatio)}.` });
  }
  return policy;
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as Partial<T>;
}
