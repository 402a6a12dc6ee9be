import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { graphemes, textWidth, wrapLine, wrapText } from './text-width.js';

describe('textWidth', () => {
  it('counts columns as a terminal shows them', () => {
    expect(textWidth('abc')).toBe(3);
    expect(textWidth('日本')).toBe(4);
    expect(textWidth('😀')).toBe(2);
    expect(textWidth('👨‍👩‍👧')).toBe(2);
    expect(textWidth('🇫🇷')).toBe(2);
    expect(textWidth('é')).toBe(1);
    expect(textWidth('\u001b[1mbold\u001b[22m')).toBe(4);
  });
});

describe('wrapLine', () => {
  it('breaks at spaces, never inside a word, and indents continuation lines', () => {
    const line = '  /compact [--dry-run | focus…]  compact the session now: older turns become a checkpoint';
    const wrapped = wrapLine(line, 66, ' '.repeat(35));
    expect(wrapped).toEqual([
      '  /compact [--dry-run | focus…]  compact the session now: older',
      `${' '.repeat(35)}turns become a checkpoint`,
    ]);
  });

  it('keeps every word whole and every line within the width (property)', () => {
    const word = fc
      .array(fc.constantFrom('a', 'z', '😀', 'é', '日', '👨‍👩‍👧'), { minLength: 1, maxLength: 12 })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 30, max: 120 }),
        (words, width) => {
          const lines = wrapLine(words.join(' '), width, '    ');
          for (const line of lines) expect(textWidth(line)).toBeLessThanOrEqual(width);
          expect(
            lines
              .join(' ')
              .split(/ +/)
              .filter((part) => part !== ''),
          ).toEqual(words);
        },
      ),
    );
  });

  it('cuts a word longer than the line between graphemes', () => {
    expect(wrapLine('😀😀😀😀😀', 4)).toEqual(['😀😀', '😀😀', '😀']);
    expect(wrapText('a\nb', 10)).toBe('a\nb');
    expect(graphemes('e\u0301x')).toEqual(['e\u0301', 'x']);
  });
});
