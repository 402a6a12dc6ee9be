import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countTextConservatively } from './conservative-text.js';

describe('countTextConservatively', () => {
  it('counts nothing for empty text and at least one token for any other', () => {
    expect(countTextConservatively('')).toBe(0);
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, unit: 'grapheme' }).filter((text) => text.trim().length > 0),
        (text) => countTextConservatively(text) >= 1,
      ),
    );
  });

  it('charges common words one token and long or random-looking ones more', () => {
    expect(countTextConservatively('the cat sat')).toBe(3);
    expect(countTextConservatively('internationalization')).toBe(1 + Math.ceil(15 / 4));
    // get · Element (7 letters: 2) · By · Id — camelCase is split into word pieces, not treated as random
    expect(countTextConservatively('getElementById')).toBe(5);
    expect(countTextConservatively('XKqzpLmNvBwRtYhJ')).toBe(Math.ceil(16 / 1.3));
    const hash = '3f9a0c1d2e4b5a6978cd0e1f2a3b4c5d6e7f8091';
    expect(countTextConservatively(hash)).toBe(Math.ceil(hash.length / 1.3));
  });

  it('charges CJK and emoji more per character than ASCII letters', () => {
    expect(countTextConservatively('上下文管理')).toBe(10);
    expect(countTextConservatively('🚀🔥')).toBe(8);
    expect(countTextConservatively('Привет')).toBe(Math.ceil(6 * 0.75));
  });

  it('counts special-token text as ordinary characters', () => {
    expect(countTextConservatively('<|endoftext|>')).toBeGreaterThanOrEqual(5);
  });

  it('never counts a text as less than either of its halves split at whitespace', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (left, right) => {
        const whole = countTextConservatively(`${left} ${right}`);
        expect(whole).toBeGreaterThanOrEqual(
          Math.max(countTextConservatively(left), countTextConservatively(right)) - 1,
        );
      }),
    );
  });
});
