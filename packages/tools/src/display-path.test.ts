import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { displayPath } from './display-path.js';

describe('displayPath', () => {
  it('leaves ordinary names alone', () => {
    expect(displayPath('src/a b/c-d_e.ts')).toBe('src/a b/c-d_e.ts');
    expect(displayPath('dir/with"quote')).toBe('dir/with"quote');
  });

  it('quotes names with a newline, a tab, DEL, C1 controls, line separators or a leading quote', () => {
    expect(displayPath('a\nb')).toBe('"a\\nb"');
    expect(displayPath('a\tb')).toBe('"a\\tb"');
    expect(displayPath('a\u007fb\u0085c\u2028d')).toBe('"a\\u007fb\\u0085c\\u2028d"');
    expect(displayPath('"start')).toBe('"\\"start"');
  });

  it('is one line that decodes to the exact name, for any name', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (name) => {
        const shown = displayPath(name);
        expect(shown).not.toMatch(/[\n\r\u2028\u2029\u0085]/);
        expect(shown === name || JSON.parse(shown) === name).toBe(true);
      }),
    );
  });
});
