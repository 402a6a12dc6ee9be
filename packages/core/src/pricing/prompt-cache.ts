import { InvalidInputError } from '../errors.js';

/**
 * How a provider caches request prefixes: what a cache hit can be made of and how long an unused
 * prefix stays. OpenAI documents its rules (a prefix of at least 1,024 tokens, hits growing in
 * steps of 128, prefixes evicted after minutes of inactivity); other providers' rules are
 * approximations, labelled as such where they are defined.
 */
export interface PromptCacheRules {
  /** The shortest prefix the provider caches; a shorter shared prefix is never a hit. */
  readonly minimumTokens: number;
  /** Above the minimum, a hit grows in steps of this many tokens. */
  readonly incrementTokens: number;
  /** How long a prefix nobody reads stays cached. After this the cache is taken to be cold. */
  readonly lifetimeMs: number;
}

/** OpenAI's documented prompt caching: 1,024-token minimum, 128-token steps, evicted after 5–10 minutes unused (5 taken). */
export const OPENAI_PROMPT_CACHE: PromptCacheRules = Object.freeze({
  minimumTokens: 1024,
  incrementTokens: 128,
  lifetimeMs: 5 * 60_000,
});

export function checkPromptCacheRules(rules: PromptCacheRules): PromptCacheRules {
  for (const field of ['minimumTokens', 'incrementTokens', 'lifetimeMs'] as const) {
    const value = rules[field];
    if (!Number.isSafeInteger(value) || value < (field === 'minimumTokens' ? 0 : 1)) {
      throw new InvalidInputError({
        message: `Prompt cache rules: ${field} must be a whole number${field === 'minimumTokens' ? ' ≥ 0' : ' ≥ 1'}, got ${String(value)}.`,
      });
    }
  }
  return rules;
}

/**
 * How many of `sharedTokens` (the longest prefix a request shares with a cached one) the provider
 * serves from its cache: 0 below the minimum, else the minimum plus whole increments, never more
 * than `inputTokens`.
 */
export function cacheableTokens(sharedTokens: number, inputTokens: number, rules: PromptCacheRules): number {
  const shared = Math.min(sharedTokens, inputTokens);
  if (shared < rules.minimumTokens || shared <= 0) return 0;
  return (
    rules.minimumTokens + Math.floor((shared - rules.minimumTokens) / rules.incrementTokens) * rules.incrementTokens
  );
}
