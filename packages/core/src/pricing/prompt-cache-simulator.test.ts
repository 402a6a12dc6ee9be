import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../model/adapter.js';
import { cacheableTokens, OPENAI_PROMPT_CACHE, type PromptCacheRules } from './prompt-cache.js';
import { createPromptCacheSimulator } from './prompt-cache-simulator.js';

/** One token per character: monotone in the prefix, so properties can be exact. */
const perCharacter = (text: string) => text.length;
const rules = OPENAI_PROMPT_CACHE;
const simulator = () => createPromptCacheSimulator({ rules, countTokens: perCharacter });
const text = (length: number, seed = 'a') => seed.repeat(length);

describe('cacheableTokens', () => {
  it('follows OpenAI: nothing under 1,024 shared tokens, then 1,024 plus whole steps of 128', () => {
    expect(cacheableTokens(1023, 5000, rules)).toBe(0);
    expect(cacheableTokens(1024, 5000, rules)).toBe(1024);
    expect(cacheableTokens(1151, 5000, rules)).toBe(1024);
    expect(cacheableTokens(1152, 5000, rules)).toBe(1152);
    expect(cacheableTokens(9000, 2000, rules)).toBe(1920);
  });
});

describe('createPromptCacheSimulator', () => {
  it('serves a growing conversation from the prefix the previous request left', () => {
    const cache = simulator();
    const first = text(3000);
    expect(cache.request({ key: 'k', text: first, at: 0 })).toEqual({
      inputTokens: 3000,
      cachedTokens: 0,
      writtenTokens: 2944,
    });
    const second = cache.request({ key: 'k', text: `${first}${text(500, 'b')}`, at: 1000 });
    expect(second).toEqual({ inputTokens: 3500, cachedTokens: 2944, writtenTokens: 512 });
  });

  it('keeps caches apart by key and forgets a prefix unused for longer than its lifetime', () => {
    const cache = simulator();
    cache.request({ key: 'a', text: text(2048), at: 0 });
    expect(cache.request({ key: 'b', text: text(2048), at: 1 }).cachedTokens).toBe(0);
    expect(cache.request({ key: 'a', text: text(2048), at: rules.lifetimeMs }).cachedTokens).toBe(2048);
    expect(cache.request({ key: 'a', text: text(2048), at: 3 * rules.lifetimeMs + 1 }).cachedTokens).toBe(0);
  });

  it('keeps a prefix alive while it is read: the lifetime runs from the last use', () => {
    const cache = simulator();
    const base = text(1500);
    cache.request({ key: 'k', text: base, at: 0 });
    for (let minute = 1; minute <= 30; minute += 1) {
      expect(cache.request({ key: 'k', text: `${base}${String(minute)}`, at: minute * 4 * 60_000 }).cachedTokens).toBe(
        1408,
      );
    }
  });

  it('finds the longest prefix among recent requests, not only the last one', () => {
    const cache = simulator();
    const long = text(4000);
    cache.request({ key: 'k', text: long, at: 0 });
    cache.request({ key: 'k', text: `${text(1100)}x${text(2000)}`, at: 1 });
    expect(cache.request({ key: 'k', text: `${long}y`, at: 2 }).cachedTokens).toBe(3968);
  });

  const requestArbitrary = fc.record({
    key: fc.constantFrom('a', 'b'),
    length: fc.integer({ min: 0, max: 6000 }),
    seed: fc.constantFrom('x', 'y'),
    gap: fc.integer({ min: 0, max: 2 * rules.lifetimeMs }),
  });

  it('never reports more cached than input, and cached is 0 or the minimum plus whole increments', () => {
    fc.assert(
      fc.property(fc.array(requestArbitrary, { minLength: 1, maxLength: 25 }), (requests) => {
        const cache = simulator();
        let at = 0;
        for (const request of requests) {
          at += request.gap;
          const served = cache.request({ key: request.key, text: text(request.length, request.seed), at });
          expect(served.cachedTokens).toBeLessThanOrEqual(served.inputTokens);
          if (served.cachedTokens > 0) {
            expect(served.cachedTokens).toBeGreaterThanOrEqual(rules.minimumTokens);
            expect((served.cachedTokens - rules.minimumTokens) % rules.incrementTokens).toBe(0);
          }
          expect(served.cachedTokens + served.writtenTokens).toBeLessThanOrEqual(served.inputTokens);
        }
      }),
    );
  });

  it('caches more the more a request shares with the cached one (monotone in the shared prefix)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 8000 }),
        fc.integer({ min: 0, max: 8000 }),
        fc.integer({ min: 1, max: 3000 }),
        (sharedA, sharedB, tail) => {
          const cached = (shared: number) => {
            const cache = simulator();
            cache.request({ key: 'k', text: text(8000), at: 0 });
            return cache.request({ key: 'k', text: `${text(shared)}${text(tail, 'z')}`, at: 1 }).cachedTokens;
          };
          const [low, high] = sharedA <= sharedB ? [sharedA, sharedB] : [sharedB, sharedA];
          expect(cached(low)).toBeLessThanOrEqual(cached(high));
          expect(cached(high)).toBe(cacheableTokens(high, high + tail, rules));
        },
      ),
    );
  });

  it('gives the same answers for the same requests (deterministic, time only from the requests)', () => {
    fc.assert(
      fc.property(fc.array(requestArbitrary, { minLength: 1, maxLength: 15 }), (requests) => {
        const play = () => {
          const cache = simulator();
          let at = 0;
          return requests.map((request) =>
            cache.request({ key: request.key, text: text(request.length, request.seed), at: (at += request.gap) }),
          );
        };
        expect(play()).toEqual(play());
      }),
    );
  });

  it('refuses rules that cannot describe a cache', () => {
    const bad: PromptCacheRules = { minimumTokens: 1024, incrementTokens: 0, lifetimeMs: 1 };
    expect(() => createPromptCacheSimulator({ rules: bad, countTokens: perCharacter })).toThrow(
      /incrementTokens must be a whole number ≥ 1/,
    );
  });
});

describe('promptCacheText', () => {
  it('gives a growing conversation a growing text, whatever order its tools were listed in', async () => {
    const { promptCacheText } = await import('./prompt-cache-text.js');
    const tools: ModelRequest['tools'] = [
      { name: 'search', description: 's', inputSchema: {} },
      { name: 'read_file', description: 'r', inputSchema: {} },
    ];
    const first: ModelRequest = {
      instructions: 'Be brief.',
      history: [],
      currentRequest: { role: 'user', content: 'hi' },
      continuation: [],
      tools,
    };
    const second: ModelRequest = {
      ...first,
      tools: [...tools].reverse(),
      continuation: [{ role: 'assistant', content: [{ type: 'text', text: 'hello' }] }],
    };
    expect(promptCacheText(second).startsWith(promptCacheText(first))).toBe(true);
    expect(promptCacheText({ ...first, checkpoint: 'memory' }).startsWith(promptCacheText(first))).toBe(false);
  });
});
