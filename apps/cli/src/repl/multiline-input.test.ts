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
