import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { changedLineCounts, diffLines, unifiedDiff } from './line-diff.js';

/** Applies a unified diff to `before` the way `patch` would, hunk by hunk by line number. */
function applyUnified(before: string, diff: readonly string[]): string {
  const source = before.length === 0 ? [] : before.split(/(?<=\n)/);
  const result: string[] = [];
  let next = 0;
  let previous: string | undefined;
  for (const line of diff.slice(2)) {
    const header = /^@@ -(\d+),(\d+) \+\d+,\d+ @@$/.exec(line);
    if (header !== null) {
      const start = Number(header[2]) === 0 ? Number(header[1]) : Number(header[1]) - 1;
      result.push(...source.slice(next, start));
      next = start;
      continue;
    }
    if (line === '\\ No newline at end of file') {
      if (previous !== undefined && result.at(-1)?.endsWith('\n') === true && previous !== '-')
        result[result.length - 1] = (result.at(-1) ?? '').slice(0, -1);
      continue;
    }
    previous = line[0];
    if (line.startsWith('-')) next += 1;
    else if (line.startsWith('+')) result.push(`${line.slice(1)}\n`);
    else {
      result.push(`${line.slice(1)}\n`);
      next += 1;
    }
  }
  result.push(...source.slice(next));
  return result.join('');
}

const text = fc
  .array(fc.constantFrom('a', 'b', 'c', 'd', ''), { maxLength: 30 })
  .chain((lines) =>
    fc.boolean().map((terminated) => (lines.length === 0 ? '' : `${lines.join('\n')}${terminated ? '\n' : ''}`)),
  );

describe('diffLines', () => {
  it('keeps both sides: same + removed lines give before, same + added lines give after', () => {
    fc.assert(
      fc.property(text, text, (before, after) => {
        const lines = diffLines(before, after);
        const join = (kind: 'removed' | 'added') =>
          lines
            .filter((line) => line.kind === 'same' || line.kind === kind)
            .map((line) => `${line.text}${line.terminated ? '\n' : ''}`)
            .join('');
        expect(join('removed')).toBe(before);
        expect(join('added')).toBe(after);
      }),
      { numRuns: 400 },
    );
  });
});

describe('unifiedDiff', () => {
  it('is a patch: applying it to before gives after', () => {
    fc.assert(
      fc.property(text, text, fc.integer({ min: 0, max: 3 }), (before, after, context) => {
        const diff = unifiedDiff(before, after, { path: 'f.txt', context });
        if (before === after) expect(diff).toEqual([]);
        else expect(applyUnified(before, diff)).toBe(after);
      }),
      { numRuns: 400 },
    );
  });

  it('prints headers, hunks with three lines of context, and a new file against /dev/null', () => {
    const before =
      ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'].join('\n') +
      '\n';
    const after = before.replace('two', 'TWO').replace('eleven\n', '');
    expect(unifiedDiff(before, after, { path: 'src/n.txt' })).toEqual([
      '--- a/src/n.txt',
      '+++ b/src/n.txt',
      '@@ -1,5 +1,5 @@',
      ' one',
      '-two',
      '+TWO',
      ' three',
      ' four',
      ' five',
      '@@ -8,5 +8,4 @@',
      ' eight',
      ' nine',
      ' ten',
      '-eleven',
      ' twelve',
    ]);
    expect(unifiedDiff(undefined, 'hello', { path: 'new.txt' })).toEqual([
      '--- /dev/null',
      '+++ b/new.txt',
      '@@ -0,0 +1,1 @@',
      '+hello',
      '\\ No newline at end of file',
    ]);
  });
});

describe('changedLineCounts', () => {
  it('counts the lines an edit adds and removes', () => {
    expect(changedLineCounts('a\nb\nc\n', 'a\nB\nc\nd\n')).toEqual({ added: 2, removed: 1 });
    expect(changedLineCounts(undefined, 'x\ny\n')).toEqual({ added: 2, removed: 0 });
    expect(changedLineCounts('same\n', 'same\n')).toEqual({ added: 0, removed: 0 });
  });
});
