import { describe, expect, it } from 'vitest';
import { MultilineInput } from './multiline-input.js';

describe('MultilineInput', () => {
  it('returns a line without a trailing backslash at once', () => {
    const input = new MultilineInput();
    expect(input.push('hello')).toBe('hello');
    expect(input.pending).toBe(false);
  });

  it('continues lines ending in a backslash, keeping the line breaks', () => {
    const input = new MultilineInput();
    expect(input.push('one\\')).toBeUndefined();
    expect(input.push('two\\')).toBeUndefined();
    expect(input.pending).toBe(true);
    expect(input.push('three')).toBe('one\ntwo\nthree');
    expect(input.pending).toBe(false);
  });

  it('forgets a continued input on clear', () => {
    const input = new MultilineInput();
    input.push('draft\\');
    input.clear();
    expect(input.push('fresh')).toBe('fresh');
  });
});

describe('MultilineInput with history', () => {
  it('keeps a continued input as typed, backslashes and line breaks, for history to recall', () => {
    const input = new MultilineInput();
    input.push('one\\');
    input.push('two');
    expect(input.lastTyped).toBe('one\\\ntwo');
  });

  it('takes a recalled multi-line input as the same input it was when typed', () => {
    const typed = new MultilineInput();
    typed.push('one \\');
    typed.push('two\\');
    const submitted = typed.push('three');
    const recalled = new MultilineInput();
    expect(recalled.push(typed.lastTyped)).toBe(submitted);
    expect(recalled.lastTyped).toBe(typed.lastTyped);
  });

  it('continues a recalled input whose last line ends in a backslash', () => {
    const input = new MultilineInput();
    expect(input.push('one\\\ntwo\\')).toBeUndefined();
    expect(input.push('three')).toBe('one\ntwo\nthree');
    expect(input.lastTyped).toBe('one\\\ntwo\\\nthree');
  });
});
