/** The one truncation rule of checkpoints: the first `max - 1` characters and "…". */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 1) return max === 1 ? '…' : '';
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** `text` on one line: every run of whitespace (newlines included) becomes one space. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Where a sentence ends: `!` or `?`, or a `.` that is not part of a path (`..`, `/.`) or of an
 * abbreviation ("e.g.", "i.e.", "vs.", "cf."), followed by whitespace; and every line break.
 */
const SENTENCE_END = /(?<=[!?]|(?<![./]|\be\.g|\bi\.e|\bvs|\bcf)\.)\s+|\n+/i;

/** Splits text into sentences and lines; the separators stay with the piece before them. */
export function splitSentences(text: string): string[] {
  return text.split(SENTENCE_END).filter((piece) => piece.trim().length > 0);
}

/** The first 12 hex digits of a hash, or `unknown`. */
export function shortHash(hash: string | null): string {
  return hash === null ? 'unknown' : hash.slice(0, 12);
}

/** The last `count` items (all of them when there are fewer), in their order. */
export function lastItems<T>(items: readonly T[], count: number): T[] {
  return count <= 0 ? [] : items.slice(Math.max(0, items.length - count));
}
