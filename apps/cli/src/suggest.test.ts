import { describe, expect, it } from 'vitest';
import { closestMatch, typoDistance } from './suggest.js';

describe('closestMatch', () => {
  it('finds the word a typo was meant to be: a missing, extra, wrong or swapped letter', () => {
    const commands = ['run', 'sessions', 'compact', 'checkpoint', 'context', 'config', 'inspect', 'eval'];
    expect(closestMatch('sesions', commands)).toBe('sessions');
    expect(closestMatch('inspcet', commands)).toBe('inspect');
    expect(closestMatch('contxt', ['help', 'sessions', 'resume', 'compact', 'checkpoint', 'context', 'model'])).toBe(
      'context',
    );
    expect(closestMatch('Compact', commands)).toBe('compact');
  });

  it('suggests nothing for a word that is not close to any', () => {
    expect(closestMatch('deploy', ['run', 'sessions', 'inspect'])).toBeUndefined();
    expect(closestMatch('x', ['run', 'eval'])).toBeUndefined();
  });

  it('counts a swap of neighbouring letters as one edit', () => {
    expect(typoDistance('ab', 'ba')).toBe(1);
    expect(typoDistance('kitten', 'sitting')).toBe(3);
    expect(typoDistance('', 'abc')).toBe(3);
  });
});
