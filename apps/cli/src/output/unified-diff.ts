import type { Style } from './style.js';

/** Colours a unified diff: headers bold, hunk lines cyan, removals red, additions green (plain when `style` is off). */
export function renderDiff(lines: readonly string[], style: Style, maxLines = 120): string {
  const shown = lines.slice(0, maxLines).map((line) => {
    if (line.startsWith('--- ') || line.startsWith('+++ ')) return style.bold(line);
    if (line.startsWith('@@')) return style.cyan(line);
    if (line.startsWith('-')) return style.red(line);
    if (line.startsWith('+')) return style.green(line);
    if (line.startsWith('\\')) return style.dim(line);
    return line;
  });
  if (lines.length > maxLines) shown.push(style.dim(`… ${lines.length - maxLines} more lines of diff`));
  return `${shown.join('\n')}\n`;
}
