import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertSafeId, createId, isSafeId } from './ids.js';

describe('safe ids', () => {
  it.each(['', '../etc', 'a/b', 'a\\b', 'a b', 'a\u0000b', '.', '..', 'x'.repeat(129), 'ä'])('refuses %j', (id) => {
    expect(isSafeId(id)).toBe(false);
    expect(() => assertSafeId(id, 'session id')).toThrow(/Invalid session id/);
  });

  it('accepts every id it creates', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 20 }).filter(isSafeId), fc.nat(), (prefix, now) =>
        isSafeId(createId(prefix.slice(0, 20), now)),
      ),
    );
  });

  it('never accepts a string containing a path separator or dot segment', () => {
    fc.assert(
      fc.property(fc.string(), (id) => !(isSafeId(id) && (id.includes('/') || id.includes('\\') || id.includes('.')))),
    );
  });
});
