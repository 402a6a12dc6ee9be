import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StreamWrapper } from './stream-wrap.js';
import { textWidth } from './text-width.js';

function wrapPieces(pieces: readonly string[], columns: number): string {
  const wrapper = new StreamWrapper(() => columns);
  return pieces.map((piece) => wrapper.push(piece)).join('') + wrapper.flush();
}

describe('StreamWrapper', () => {
  it('breaks at the space before a word that would cross the edge, even when the word arrives in pieces', () => {
    expect(wrapPieces(['The quick bro', 'wn fox jum', 'ps over'], 12)).toBe('The quick \nbrown fox \njumps over');
  });

  it('holds the streamed word until it ends', () => {
    const wrapper = new StreamWrapper(() => 20);
    expect(wrapper.push('hello wor')).toBe('hello ');
    expect(wrapper.push('ld\n')).toBe('world\n');
    expect(wrapper.flush()).toBe('');
  });

  it('gives up a held word on flush and goes on wrapping from where the row ends', () => {
    const wrapper = new StreamWrapper(() => 10);
    expect(wrapper.push('one two')).toBe('one ');
    expect(wrapper.flush()).toBe('two');
    // The break comes as soon as the word is known not to fit, before it ends.
    expect(wrapper.push(' three')).toBe(' \n');
    expect(wrapper.flush()).toBe('three');
    wrapper.lineEnded();
    expect(wrapper.push('0123456789 x')).toBe('0123456789\n');
  });

  it('counts wide characters as two columns and never splits one over two rows', () => {
    expect(wrapPieces(['ab 日本', '語です'], 8)).toBe('ab \n日本語で\nす');
  });

  it('cuts a word wider than the row between graphemes', () => {
    expect(wrapPieces(['x abcdefghij'], 4)).toBe('x \nabcd\nefgh\nij');
  });

  it('drops the spaces a break leaves at the start of a row, and keeps line breaks of the text', () => {
    expect(wrapPieces(['aaaa', '    bb\n\ncc'], 4)).toBe('aaaa\nbb\n\ncc');
  });

  it('gives the same rows however the text is cut into pieces, no row wider than the terminal, no word cut that fits a row', () => {
    const letters = ['a', 'b', 'z', '日', '本', 'e\u0301', '👍', '🇫🇷'];
    const word = fc.array(fc.constantFrom(...letters), { minLength: 1, maxLength: 9 }).map((chars) => chars.join(''));
    const text = fc
      .array(fc.tuple(word, fc.constantFrom(' ', '  ', '\n')), { minLength: 1, maxLength: 30 })
      .map((parts) => parts.map(([w, gap]) => w + gap).join(''));
    fc.assert(
      fc.property(
        text,
        fc.integer({ min: 18, max: 40 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (input, columns, cuts) => {
          // Deltas are whole code points but may end inside a grapheme (half a flag, a letter before its accent).
          const codePoints = Array.from(input);
          const points = [...new Set(cuts.map((cut) => cut % (codePoints.length + 1)))].sort((a, b) => a - b);
          const pieces = [0, ...points, codePoints.length]
            .slice(1)
            .map((end, index, ends) => codePoints.slice(index === 0 ? 0 : ends[index - 1], end).join(''));
          const whole = wrapPieces([input], columns);
          expect(wrapPieces(pieces, columns)).toBe(whole);
          for (const row of whole.split('\n')) expect(textWidth(row.trimEnd())).toBeLessThanOrEqual(columns);
          expect(whole.split(/\s+/).filter(Boolean)).toEqual(input.split(/\s+/).filter(Boolean));
        },
      ),
      { numRuns: 500 },
    );
  });
});
