/**
 * Joins typed lines into one input: a line ending in a backslash continues on the next line (the
 * backslash is dropped, the line break kept). A line recalled from history may hold several
 * typed lines at once (`one\` newline `two`); each is taken as if typed alone.
 */
export class MultilineInput {
  private parts: string[] = [];
  private typed: string[] = [];
  private lastTypedEntry = '';

  /** True while a continued input waits for its next line. */
  get pending(): boolean {
    return this.parts.length > 0;
  }

  /** The last complete input as it was typed, backslashes and line breaks kept: what history recalls. */
  get lastTyped(): string {
    return this.lastTypedEntry;
  }

  /** Adds one typed line; returns the complete input, or undefined when the input continues. */
  push(line: string): string | undefined {
    this.typed.push(line);
    const lines = line.split('\n');
    const last = lines.pop() ?? '';
    for (const earlier of lines) this.parts.push(earlier.endsWith('\\') ? earlier.slice(0, -1) : earlier);
    if (last.endsWith('\\')) {
      this.parts.push(last.slice(0, -1));
      return undefined;
    }
    const complete = [...this.parts, last].join('\n');
    this.lastTypedEntry = this.typed.join('\n');
    this.parts = [];
    this.typed = [];
    return complete;
  }

  /** Drops a half-typed continued input. */
  clear(): void {
    this.parts = [];
    this.typed = [];
  }
}
