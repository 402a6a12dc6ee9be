import { graphemes, textWidth } from './text-width.js';

/**
 * Wraps streamed text at spaces for a terminal `columns()` wide, one piece at a time: the word
 * being streamed is held until a space or line break says where it ends, so a word is never cut
 * by the terminal's own wrap. A word wider than the row is cut between graphemes, and a wide
 * character is never split over two rows, even when a piece ends inside it. Starts at column 0.
 */
export class StreamWrapper {
  private column = 0;
  private word = '';
  private wordWidth = 0;
  // After a break the wrapper made, the spaces that would start the next row are dropped.
  private atSoftBreak = false;

  constructor(private readonly columns: () => number) {}

  /** The part of `text` (and of what was held) that can be written now. */
  push(text: string): string {
    let out = '';
    for (const grapheme of graphemes(text)) {
      if (grapheme === '\n' || grapheme === '\r\n') {
        out += `${this.takeWord()}${grapheme}`;
        this.column = 0;
        this.atSoftBreak = false;
      } else if (grapheme === ' ') {
        out += this.takeWord() + this.space();
      } else {
        out += this.addToWord(grapheme);
      }
    }
    return out;
  }

  /** What is still held (the end of the last word): the stream paused or ended, so the word is taken as ended. */
  flush(): string {
    return this.takeWord();
  }

  /** Something else ended the line (a line break written around the wrapper): starts over at column 0. */
  lineEnded(): void {
    this.column = 0;
    this.atSoftBreak = false;
  }

  private width(): number {
    return Math.max(1, this.columns());
  }

  private space(): string {
    if (this.atSoftBreak) return '';
    if (this.column >= this.width()) return this.softBreak();
    this.column += 1;
    return ' ';
  }

  private softBreak(): string {
    this.column = 0;
    this.atSoftBreak = true;
    return '\n';
  }

  private addToWord(grapheme: string): string {
    let out = '';
    const width = this.width();
    // Measured whole: a piece may end inside a grapheme (half a flag, a letter before its accent).
    let candidate = textWidth(this.word + grapheme);
    if (this.column > 0 && this.column + candidate > width) out += this.softBreak();
    if (candidate > width && this.word !== '') {
      // Wider than a whole row: the row is written full and the word goes on below.
      out += `${this.word}\n`;
      this.word = '';
      this.column = 0;
      candidate = textWidth(grapheme);
    }
    this.word += grapheme;
    this.wordWidth = candidate;
    return out;
  }

  private takeWord(): string {
    const word = this.word;
    if (word !== '') this.atSoftBreak = false;
    this.column += this.wordWidth;
    this.word = '';
    this.wordWidth = 0;
    return word;
  }
}
