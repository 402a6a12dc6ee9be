/**
 * The "Budget per step" table of `forge inspect` text output: the header's column names (cells
 * are separated by two or more spaces) and the words of its first `rowCount` rows.
 */
export function budgetTable(text: string, rowCount: number): { readonly header: string[]; readonly rows: string[][] } {
  const lines = text.split('\n');
  const start = lines.indexOf('Budget per step');
  const header = (lines[start + 1] ?? '').trim().split(/\s{2,}/);
  const rows = lines.slice(start + 2, start + 2 + rowCount).map((row) => row.trim().split(/\s+/));
  return { header, rows };
}
