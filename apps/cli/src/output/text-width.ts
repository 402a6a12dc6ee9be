/*
 * How many terminal columns text takes, grapheme by grapheme: wide East Asian characters and
 * emoji take two, combining marks and zero-width characters none. Used to place the cursor of the
 * line editor and to wrap long text at word boundaries.
 */

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Escape sequences (colours) take no columns. */
// eslint-disable-next-line no-control-regex
const ANSI_ESCAPE = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;

/** Code point ranges the Unicode East Asian Width property marks Wide or Fullwidth (the common blocks). */
const WIDE_RANGES: readonly (readonly [number, number])[] = [
  [0x1100, 0x115f],
  [0x2329, 0x232a],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xa960, 0xa97f],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe10, 0xfe19],
  [0xfe30, 0xfe6f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x1f300, 0x1f64f],
  [0x1f900, 0x1f9ff],
  [0x20000, 0x2fffd],
  [0x30000, 0x3fffd],
];

function isWide(codePoint: number): boolean {
  return WIDE_RANGES.some(([first, last]) => codePoint >= first && codePoint <= last);
}

/** The grapheme clusters of `text`, as a person sees characters. */
export function graphemes(text: string): string[] {
  return Array.from(segmenter.segment(text), (segment) => segment.segment);
}

/** The columns one grapheme cluster takes: 0, 1 or 2. */
export function graphemeWidth(grapheme: string): number {
  const first = grapheme.codePointAt(0);
  if (first === undefined) return 0;
  if (first < 0x20 || (first >= 0x7f && first < 0xa0)) return 0;
  if (/^[\p{Mn}\p{Me}\u200b-\u200f\u2060\ufeff]+$/u.test(grapheme)) return 0;
  if (/\p{Regional_Indicator}/u.test(grapheme)) return 2;
  if (
    /\p{Extended_Pictographic}/u.test(grapheme) &&
    (/\p{Emoji_Presentation}/u.test(grapheme) || grapheme.includes('\ufe0f'))
  )
    return 2;
  return isWide(first) ? 2 : 1;
}

/** The columns `text` takes on one line (escape sequences count nothing). */
export function textWidth(text: string): number {
  let width = 0;
  for (const grapheme of graphemes(text.replace(ANSI_ESCAPE, ''))) width += graphemeWidth(grapheme);
  return width;
}

/** Cuts `word` (no spaces) into pieces of at most `width` columns, never inside a grapheme. */
function splitLongWord(word: string, width: number): string[] {
  const pieces: string[] = [];
  let piece = '';
  let used = 0;
  for (const grapheme of graphemes(word)) {
    const columns = graphemeWidth(grapheme);
    if (used + columns > width && piece !== '') {
      pieces.push(piece);
      piece = '';
      used = 0;
    }
    piece += grapheme;
    used += columns;
  }
  if (piece !== '') pieces.push(piece);
  return pieces;
}

/**
 * Wraps one line of text to `width` columns at spaces. Continuation lines start with `indent`
 * (so a table's second column stays aligned); a word longer than a line is cut between graphemes.
 */
export function wrapLine(line: string, width: number, indent = ''): string[] {
  if (textWidth(line) <= width) return [line];
  const leading = /^ */.exec(line)?.[0] ?? '';
  // Words and the runs of spaces between them; spaces are kept inside a line (table padding) and dropped at a break.
  const tokens = line
    .slice(leading.length)
    .split(/( +)/)
    .filter((token) => token !== '');
  const lines: string[] = [];
  let prefix = leading;
  let current = '';
  let gap = '';
  const room = () => Math.max(1, width - textWidth(prefix));
  const push = () => {
    lines.push(`${prefix}${current}`);
    prefix = indent;
    current = '';
  };
  for (const token of tokens) {
    if (token.startsWith(' ')) {
      gap = token;
      continue;
    }
    const candidate = current === '' ? token : `${current}${gap}${token}`;
    gap = '';
    if (textWidth(candidate) <= room()) {
      current = candidate;
      continue;
    }
    if (current !== '') push();
    if (textWidth(token) <= room()) {
      current = token;
      continue;
    }
    const pieces = splitLongWord(token, Math.min(room(), Math.max(1, width - textWidth(indent))));
    for (const piece of pieces.slice(0, -1)) {
      current = piece;
      push();
    }
    current = pieces.at(-1) ?? '';
  }
  if (current !== '') push();
  return lines;
}

/** Wraps every line of `text` to `width` columns (see `wrapLine`). */
export function wrapText(text: string, width: number, indent = ''): string {
  return text
    .split('\n')
    .flatMap((line) => wrapLine(line, width, indent))
    .join('\n');
}
