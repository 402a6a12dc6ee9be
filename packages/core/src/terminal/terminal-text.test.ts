import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { terminalLine, terminalText } from './terminal-text.js';

describe('terminal text', () => {
  it('shows escape sequences visibly instead of letting a terminal act on them', () => {
    expect(terminalText('a\u001b]52;c;aGk=\u0007b\u001b[2J')).toBe('a\\x1b]52;c;aGk=\\x07b\\x1b[2J');
    expect(terminalText('title\u001b]0;pwned\u009c')).toBe('title\\x1b]0;pwned\\x9c');
    expect(terminalText('over\rwrite')).toBe('over\\rwrite');
    expect(terminalText('evil\u202Etxt.exe')).toBe('evil\\u202etxt.exe');
  });

  it('keeps lines, tabs, CRLF and every printable script in multi-line text', () => {
    const text = 'line one\r\n\tindented — ünïcödé, 日本語, emoji 🎉\n';
    expect(terminalText(text)).toBe(text);
  });

  it('keeps a one-line rendering on one line', () => {
    expect(terminalLine('esc\u001b[31mred\nline\tx')).toBe('esc\\x1b[31mred\\nline\\tx');
  });

  it('never lets a control character through, for any input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        // eslint-disable-next-line no-control-regex
        expect(terminalLine(text)).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
        // eslint-disable-next-line no-control-regex
        expect(terminalText(text)).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]|\r(?!\n)/);
      }),
    );
  });
});
