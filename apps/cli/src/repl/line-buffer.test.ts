import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { graphemes } from '../output/text-width.js';
import { cleanInput, LineBuffer } from './line-buffer.js';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function boundaries(text: string): number[] {
  const result = [0];
  let offset = 0;
  for (const grapheme of graphemes(text)) result.push((offset += grapheme.length));
  return result;
}

/** What people type: letters, emoji with joiners, skin tones and variation selectors, flags, combining marks — and broken halves of them. */
const piece = fc.constantFrom(
  'a',
  'Z',
  ' ',
  'é',
  'e\u0301',
  '\u0301',
  '日',
  '😀',
  '👍🏽',
  '👨‍👩‍👧',
  '\u200d',
  '🇫',
  '🇷',
  '🇫🇷',
  '❤️',
  '\ufe0f',
  '\ud83d',
  '\ude00',
  '\t',
  '\n',
);
const operation = fc.oneof(
  fc.array(piece, { minLength: 1, maxLength: 4 }).map((parts) => ({ kind: 'insert' as const, text: parts.join('') })),
  fc.constantFrom(
    ...(
      [
        'left',
        'right',
        'home',
        'end',
        'backspace',
        'deleteForward',
        'wordLeft',
        'wordRight',
        'deleteWordLeft',
        'deleteToStart',
        'deleteToEnd',
      ] as const
    ).map((kind) => ({ kind })),
  ),
);

function apply(buffer: LineBuffer, step: { readonly kind: string; readonly text?: string }): void {
  if (step.kind === 'insert') buffer.insert(step.text ?? '');
  else (buffer[step.kind as 'left'] as () => void).call(buffer);
}

describe('LineBuffer', () => {
  it('never stores a lone surrogate or a control character, and keeps the cursor between graphemes, whatever is typed (property)', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 60 }), (steps) => {
        const buffer = new LineBuffer();
        for (const step of steps) {
          apply(buffer, step);
          expect(buffer.text).not.toMatch(LONE_SURROGATE);
          // eslint-disable-next-line no-control-regex
          expect(buffer.text).not.toMatch(/[\u0000-\u001f\u007f]/);
          expect(boundaries(buffer.text)).toContain(buffer.cursor);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('deletes a whole emoji, family, flag or accented letter with one backspace, and moves over it with one arrow', () => {
    for (const grapheme of ['😀', '👨‍👩‍👧', '🇫🇷', 'e\u0301', '👍🏽', '❤️']) {
      const buffer = new LineBuffer();
      buffer.insert(`a${grapheme}b`);
      buffer.left();
      buffer.left();
      expect(buffer.cursor).toBe(1);
      buffer.right();
      expect(buffer.cursor).toBe(1 + grapheme.length);
      buffer.backspace();
      expect(buffer.text).toBe('ab');
    }
  });

  it('builds an emoji typed one code point at a time into one character', () => {
    const buffer = new LineBuffer();
    for (const codePoint of ['👨', '\u200d', '👩', '\u200d', '👧']) buffer.insert(codePoint);
    expect(graphemes(buffer.text)).toEqual(['👨‍👩‍👧']);
    buffer.backspace();
    expect(buffer.text).toBe('');
  });

  it('moves and deletes by word, and to either end of the line', () => {
    const buffer = new LineBuffer();
    buffer.insert('fix the 😀 bug');
    buffer.wordLeft();
    expect(buffer.beforeCursor).toBe('fix the 😀 ');
    buffer.wordLeft();
    buffer.deleteWordLeft();
    expect(buffer.text).toBe('fix 😀 bug');
    buffer.wordRight();
    expect(buffer.beforeCursor).toBe('fix 😀');
    buffer.deleteToEnd();
    expect(buffer.text).toBe('fix 😀');
    buffer.deleteToStart();
    expect(buffer.text).toBe('');
  });

  it('replaces lone surrogates and drops control characters in pasted text', () => {
    expect(cleanInput('a\ud83db\ude00c\n\u001b[d')).toBe('a\ufffdb\ufffdc[d');
  });
});

describe('LineBuffer.set', () => {
  it('keeps the line breaks of a recalled multi-line entry and drops other control characters', () => {
    const buffer = new LineBuffer();
    buffer.set('one \\\n\u0007two');
    expect(buffer.text).toBe('one \\\ntwo');
    buffer.insert('\n!');
    expect(buffer.text).toBe('one \\\ntwo!');
  });
});
