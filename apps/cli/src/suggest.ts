/**
 * Edit distance between `left` and `right` counting insertions, deletions, substitutions and
 * swaps of two neighbouring characters (a typo's usual forms).
 */
export function typoDistance(left: string, right: string): number {
  const rows = left.length + 1;
  const columns = right.length + 1;
  const distance: number[] = Array.from({ length: rows * columns }, () => 0);
  const at = (row: number, column: number) => distance[row * columns + column] ?? 0;
  for (let row = 0; row < rows; row += 1) distance[row * columns] = row;
  for (let column = 0; column < columns; column += 1) distance[column] = column;
  for (let row = 1; row < rows; row += 1) {
    for (let column = 1; column < columns; column += 1) {
      const cost = left[row - 1] === right[column - 1] ? 0 : 1;
      let best = Math.min(at(row - 1, column) + 1, at(row, column - 1) + 1, at(row - 1, column - 1) + cost);
      if (row > 1 && column > 1 && left[row - 1] === right[column - 2] && left[row - 2] === right[column - 1])
        best = Math.min(best, at(row - 2, column - 2) + 1);
      distance[row * columns + column] = best;
    }
  }
  return at(rows - 1, columns - 1);
}

/**
 * The candidate `input` was most likely meant to be: the nearest by `typoDistance` when it is a
 * small share of the word (one edit per three characters, at least one), else undefined. Ties go
 * to the earlier candidate.
 */
export function closestMatch(input: string, candidates: readonly string[]): string | undefined {
  const limit = Math.max(1, Math.floor(input.length / 3));
  let best: { readonly candidate: string; readonly distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = typoDistance(input.toLowerCase(), candidate.toLowerCase());
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}
