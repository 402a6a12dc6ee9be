/** A column of a text table. Numbers are usually right-aligned, words left-aligned. */
export interface TextColumn {
  readonly header: string;
  readonly align?: 'left' | 'right';
}

/** A cell: the plain text that sets the width, and how to draw it (colour) once padded. */
export type TextCell = string | { readonly text: string; readonly paint: (padded: string) => string };

const plain = (cell: TextCell): string => (typeof cell === 'string' ? cell : cell.text);

/**
 * Lays out rows under their headers with columns padded to the widest cell, two spaces apart,
 * each line indented by `indent`. Widths come from the plain text, so colour never shifts columns.
 */
export function formatTable(options: {
  readonly columns: readonly TextColumn[];
  readonly rows: readonly (readonly TextCell[])[];
  readonly indent?: string;
  readonly paintHeader?: (text: string) => string;
}): string[] {
  const { columns, rows } = options;
  const indent = options.indent ?? '  ';
  const widths = columns.map((column, index) =>
    Math.max(column.header.length, ...rows.map((row) => plain(row[index] ?? '').length)),
  );
  const pad = (text: string, index: number) => {
    const width = widths[index] ?? text.length;
    return columns[index]?.align === 'right' ? text.padStart(width) : text.padEnd(width);
  };
  const line = (cells: readonly string[]) => `${indent}${cells.join('  ')}`.trimEnd();
  const header = line(columns.map((column, index) => pad(column.header, index)));
  const body = rows.map((row) =>
    line(
      columns.map((_, index) => {
        const cell = row[index] ?? '';
        const padded = pad(plain(cell), index);
        return typeof cell === 'string' ? padded : cell.paint(padded);
      }),
    ),
  );
  return [options.paintHeader === undefined ? header : options.paintHeader(header), ...body];
}
