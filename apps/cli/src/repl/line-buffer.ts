import { graphemes } from '../output/text-width.js';

/** Any UTF-16 surrogate that is not half of a pair. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** Control characters typed or pasted into a line (line breaks and tabs included) are not kept. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/g;

/** Text as the line stores it: no lone surrogates (they become U+FFFD), no control characters. */
export function cleanInput(text: string): string {
  return text.replace(LONE_SURROGATE, '\ufffd').replace(CONTROL, '');
}

function isSpace(grapheme: string): boolean {
  return /^\s+$/u.test(grapheme);
}

/**
 * The text of the line being edited and the cursor in it. Every move and deletion goes by
 * grapheme cluster (what a person sees as one character: an emoji with its joiners and modifiers,
 * a letter with its combining marks, a flag), so the cursor is always between two of them and
 * the text never holds a lone surrogate.
 */
export class LineBuffer {
  private value = '';
  /** UTF-16 offset; always a grapheme boundary of `value`. */
  private position = 0;

  get text(): string {
    return this.value;
  }

  get cursor(): number {
    return this.position;
  }

  /** The text before the cursor. */
  get beforeCursor(): string {
    return this.value.slice(0, this.position);
  }

  /**
   * Replaces the whole line (history recall, completion) and puts the cursor at its end. Line
   * breaks are kept: a recalled entry of several typed lines (a `\`-continued input) stays one.
   */
  set(text: string): void {
    this.value = text.split('\n').map(cleanInput).join('\n');
    this.position = this.value.length;
  }

  /** Inserts typed or pasted text at the cursor; the cursor ends after it. */
  insert(text: string): void {
    const clean = cleanInput(text);
    if (clean === '') return;
    this.value = this.value.slice(0, this.position) + clean + this.value.slice(this.position);
    this.position = this.snapForward(this.position + clean.length);
  }

  left(): void {
    this.position = this.previousBoundary(this.position);
  }

  right(): void {
    this.position = this.nextBoundary(this.position);
  }

  home(): void {
    this.position = 0;
  }

  end(): void {
    this.position = this.value.length;
  }

  /** Deletes the grapheme before the cursor. */
  backspace(): void {
    const start = this.previousBoundary(this.position);
    this.cut(start, this.position);
  }

  /** Deletes the grapheme under the cursor. */
  deleteForward(): void {
    this.cut(this.position, this.nextBoundary(this.position));
  }

  /** Moves to the start of the word before the cursor. */
  wordLeft(): void {
    this.position = this.wordStartBefore(this.position);
  }

  /** Moves to the end of the word after the cursor. */
  wordRight(): void {
    const parts = this.parts();
    let index = parts.findIndex((part) => part.start >= this.position);
    if (index === -1) return;
    while (index < parts.length && isSpace(parts[index]?.text ?? '')) index += 1;
    while (index < parts.length && !isSpace(parts[index]?.text ?? '')) index += 1;
    this.position = index < parts.length ? (parts[index]?.start ?? this.value.length) : this.value.length;
  }

  /** Deletes from the start of the word before the cursor to the cursor (Ctrl-W). */
  deleteWordLeft(): void {
    this.cut(this.wordStartBefore(this.position), this.position);
  }

  /** Deletes from the start of the line to the cursor (Ctrl-U). */
  deleteToStart(): void {
    this.cut(0, this.position);
  }

  /** Deletes from the cursor to the end of the line (Ctrl-K). */
  deleteToEnd(): void {
    this.cut(this.position, this.value.length);
  }

  clear(): void {
    this.value = '';
    this.position = 0;
  }

  private cut(start: number, end: number): void {
    if (end <= start) return;
    this.value = this.value.slice(0, start) + this.value.slice(end);
    // Deleting can join what is left into one grapheme (a flag's halves); keep the cursor on a boundary.
    this.position = this.snapForward(start);
  }

  private parts(): { readonly text: string; readonly start: number }[] {
    const parts: { text: string; start: number }[] = [];
    let start = 0;
    for (const grapheme of graphemes(this.value)) {
      parts.push({ text: grapheme, start });
      start += grapheme.length;
    }
    return parts;
  }

  private boundaries(): number[] {
    return [...this.parts().map((part) => part.start), this.value.length];
  }

  private previousBoundary(offset: number): number {
    return (
      this.boundaries()
        .filter((boundary) => boundary < offset)
        .at(-1) ?? 0
    );
  }

  private nextBoundary(offset: number): number {
    return this.boundaries().find((boundary) => boundary > offset) ?? this.value.length;
  }

  /** `offset`, or the next grapheme boundary when it falls inside a grapheme. */
  private snapForward(offset: number): number {
    return this.boundaries().find((boundary) => boundary >= offset) ?? this.value.length;
  }

  private wordStartBefore(offset: number): number {
    const parts = this.parts().filter((part) => part.start < offset);
    let index = parts.length - 1;
    while (index >= 0 && isSpace(parts[index]?.text ?? '')) index -= 1;
    while (index >= 0 && !isSpace(parts[index]?.text ?? '')) index -= 1;
    return index < 0 ? 0 : (parts[index + 1]?.start ?? 0);
  }
}
