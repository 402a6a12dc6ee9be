import { unifiedDiff } from '@forge/tools';
import { describe, expect, it } from 'vitest';
import { createStyle } from './style.js';
import { renderDiff } from './unified-diff.js';

describe('renderDiff', () => {
  it('colours removals red and additions green, and stays plain without colour', () => {
    const diff = unifiedDiff('a\n', 'b\n', { path: 'x' });
    expect(renderDiff(diff, createStyle(true))).toContain('\u001b[31m-a\u001b[39m\n\u001b[32m+b\u001b[39m');
    expect(renderDiff(diff, createStyle(false))).toBe('--- a/x\n+++ b/x\n@@ -1,1 +1,1 @@\n-a\n+b\n');
  });

  it('shortens a long diff and says how much was left out', () => {
    const diff = unifiedDiff(undefined, 'x\n'.repeat(50), { path: 'big' });
    expect(renderDiff(diff, createStyle(false), 10).trimEnd().split('\n').at(-1)).toBe('… 43 more lines of diff');
  });
});
