import { cacheableTokens, checkPromptCacheRules, type PromptCacheRules } from './prompt-cache.js';

export interface PromptCacheSimulatorOptions {
  readonly rules: PromptCacheRules;
  /** Counts the tokens of a text; the simulator counts the request and its shared prefix with it. */
  readonly countTokens: (text: string) => number;
  /** Cached requests kept per key (default 16): a hit is the longest prefix shared with any of them. */
  readonly retainedPerKey?: number;
}

/** One request as the provider reads it: its cache key and its text in the order the provider caches it. */
export interface SimulatedRequest {
  /** Requests share a cache only under the same key (OpenAI's `prompt_cache_key`; the account and model elsewhere). */
  readonly key: string;
  /** Tool schemas, instructions, then the conversation, serialized as sent. */
  readonly text: string;
  /** Milliseconds since the epoch. */
  readonly at: number;
}

export interface SimulatedUsage {
  readonly inputTokens: number;
  /** Tokens served from the cache: 0, or the rules' minimum plus whole increments. */
  readonly cachedTokens: number;
  /** Cacheable tokens of this request that were not cached before: what a provider that bills writes charges as written. */
  readonly writtenTokens: number;
}

export interface PromptCacheSimulator {
  /** Serves one request from the simulated cache, then caches it. */
  request(request: SimulatedRequest): SimulatedUsage;
}

interface Entry {
  readonly text: string;
  /** The tokens of `text`: a request that extends it whole shares exactly these. */
  readonly tokens: number;
  lastUsed: number;
}

function sharedPrefixLength(left: string, right: string): number {
  const limit = Math.min(left.length, right.length);
  let index = 0;
  while (index < limit && left.charCodeAt(index) === right.charCodeAt(index)) index += 1;
  return index;
}

/**
 * A pure, in-memory model of prefix caching: a request is served from the longest prefix it
 * shares with a live cached request of the same key, rounded down to what the rules allow; each
 * request is then cached itself. A cached request expires `lifetimeMs` after it was last used.
 * Time comes only from the requests, so runs are reproducible.
 */
export function createPromptCacheSimulator(options: PromptCacheSimulatorOptions): PromptCacheSimulator {
  const rules = checkPromptCacheRules(options.rules);
  const retained = options.retainedPerKey ?? 16;
  const byKey = new Map<string, Entry[]>();

  return {
    request({ key, text, at }) {
      const live = (byKey.get(key) ?? []).filter((entry) => at - entry.lastUsed <= rules.lifetimeMs);
      let best: Entry | undefined;
      let bestLength = 0;
      // Longest first: an entry no longer than the best match so far cannot share more.
      for (const entry of [...live].sort((left, right) => right.text.length - left.text.length)) {
        if (entry.text.length <= bestLength) break;
        const length = sharedPrefixLength(entry.text, text);
        if (length > bestLength) {
          best = entry;
          bestLength = length;
        }
      }
      const inputTokens = options.countTokens(text);
      const sharedTokens =
        best === undefined
          ? 0
          : bestLength === best.text.length
            ? best.tokens
            : options.countTokens(text.slice(0, bestLength));
      const cachedTokens = cacheableTokens(sharedTokens, inputTokens, rules);
      if (best !== undefined && cachedTokens > 0) best.lastUsed = at;
      const writtenTokens = Math.max(0, cacheableTokens(inputTokens, inputTokens, rules) - cachedTokens);
      const kept = live.filter((entry) => entry.text !== text);
      kept.push({ text, tokens: inputTokens, lastUsed: at });
      byKey.set(key, kept.slice(-retained));
      return { inputTokens, cachedTokens, writtenTokens };
    },
  };
}
