/** One line of a line diff. `text` excludes the line break. */
export interface DiffLine {
  readonly kind: 'same' | 'removed' | 'added';
  readonly text: string;
  /** False for a last line without a line break. */
  readonly terminated: boolean;
}

/** Beyond this many cells the middle of a diff is shown as removed-then-added instead of aligned. */
const ALIGNMENT_CELLS = 4_000_000;

interface SourceLine {
  readonly text: string;
  readonly terminated: boolean;
}

function splitLines(text: string): SourceLine[] {
  if (text.length === 0) return [];
  const parts = text.split('\n');
  const last = parts.pop() ?? '';
  const lines = parts.map((part) => ({ text: part, terminated: true }));
  if (last.length > 0) lines.push({ text: last, terminated: false });
  return lines;
}

const sameLine = (left: SourceLine, right: SourceLine) =>
  left.text === right.text && left.terminated === right.terminated;

/**
 * The lines of `before` and `after` aligned by a longest common subsequence: equal lines are
 * `same`, the rest `removed` (from before) or `added` (from after), removals first in each run.
 */
export function diffLines(before: string, after: string): DiffLine[] {
  const left = splitLines(before);
  const right = splitLines(after);
  let start = 0;
  while (start < left.length && start < right.length && sameLine(left[start] as SourceLine, right[start] as SourceLine))
    start += 1;
  let leftEnd = left.length;
  let rightEnd = right.length;
  while (
    leftEnd > start &&
    rightEnd > start &&
    sameLine(left[leftEnd - 1] as SourceLine, right[rightEnd - 1] as SourceLine)
  ) {
    leftEnd -= 1;
    rightEnd -= 1;
  }
  const same = (line: SourceLine): DiffLine => ({ kind: 'same', ...line });
  return [
    ...left.slice(0, start).map(same),
    ...alignMiddle(left.slice(start, leftEnd), right.slice(start, rightEnd)),
    ...left.slice(leftEnd).map(same),
  ];
}

function alignMiddle(left: readonly SourceLine[], right: readonly SourceLine[]): DiffLine[] {
  const removed = (line: SourceLine): DiffLine => ({ kind: 'removed', ...line });
  const added = (line: SourceLine): DiffLine => ({ kind: 'added', ...line });
  if (left.length === 0 || right.length === 0 || left.length * right.length > ALIGNMENT_CELLS)
    return [...left.map(removed), ...right.map(added)];
  // lengths[i][j]: longest common subsequence of left[i..] and right[j..].
  const width = right.length + 1;
  const lengths = new Uint32Array((left.length + 1) * width);
  for (let i = left.length - 1; i >= 0; i -= 1) {
    for (let j = right.length - 1; j >= 0; j -= 1) {
      lengths[i * width + j] = sameLine(left[i] as SourceLine, right[j] as SourceLine)
        ? (lengths[(i + 1) * width + j + 1] ?? 0) + 1
        : Math.max(lengths[(i + 1) * width + j] ?? 0, lengths[i * width + j + 1] ?? 0);
    }
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length && j < right.length) {
    if (sameLine(left[i] as SourceLine, right[j] as SourceLine)) {
      lines.push({ kind: 'same', ...(left[i] as SourceLine) });
      i += 1;
      j += 1;
    } else if ((lengths[(i + 1) * width + j] ?? 0) >= (lengths[i * width + j + 1] ?? 0)) {
      lines.push(removed(left[i] as SourceLine));
      i += 1;
    } else {
      lines.push(added(right[j] as SourceLine));
      j += 1;
    }
  }
  return [...lines, ...left.slice(i).map(removed), ...right.slice(j).map(added)];
}

/**
 * A unified diff (`--- a/path`, `+++ b/path`, `@@ -l,n +l,n @@` hunks with `context` lines around
 * each change) of `before` → `after`; `before` undefined means a new file. Empty when nothing changes.
 */
export function unifiedDiff(
  before: string | undefined,
  after: string,
  options: { readonly path: string; readonly context?: number },
): string[] {
  const context = options.context ?? 3;
  const lines = diffLines(before ?? '', after);
  const changed = lines.flatMap((line, index) => (line.kind === 'same' ? [] : [index]));
  if (changed.length === 0) return [];

  // Group changes whose context windows touch into hunks.
  const hunks: [number, number][] = [];
  for (const index of changed) {
    const from = Math.max(0, index - context);
    const to = Math.min(lines.length, index + context + 1);
    const last = hunks.at(-1);
    if (last !== undefined && from <= last[1]) last[1] = to;
    else hunks.push([from, to]);
  }

  const output = [before === undefined ? '--- /dev/null' : `--- a/${options.path}`, `+++ b/${options.path}`];
  let oldLine = 1;
  let newLine = 1;
  let position = 0;
  for (const [from, to] of hunks) {
    for (; position < from; position += 1) {
      oldLine += 1;
      newLine += 1;
    }
    const slice = lines.slice(from, to);
    const oldCount = slice.filter((line) => line.kind !== 'added').length;
    const newCount = slice.filter((line) => line.kind !== 'removed').length;
    output.push(
      `@@ -${oldCount === 0 ? oldLine - 1 : oldLine},${oldCount} +${newCount === 0 ? newLine - 1 : newLine},${newCount} @@`,
    );
    for (const line of slice) {
      output.push(`${line.kind === 'same' ? ' ' : line.kind === 'removed' ? '-' : '+'}${line.text}`);
      if (!line.terminated) output.push('\\ No newline at end of file');
      if (line.kind !== 'added') oldLine += 1;
      if (line.kind !== 'removed') newLine += 1;
    }
    position = to;
  }
  return output;
}

/** Lines added and removed going from `before` to `after` (`before` undefined: a new file). */
export function changedLineCounts(
  before: string | undefined,
  after: string,
): { readonly added: number; readonly removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of diffLines(before ?? '', after)) {
    if (line.kind === 'added') added += 1;
    else if (line.kind === 'removed') removed += 1;
  }
  return { added, removed };
}
