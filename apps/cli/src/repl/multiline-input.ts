/**
 * Joins typed lines into one input: a line ending in a backslash continues on the next line (the
 * backslash is dropped, the line break kept).
 */
export class MultilineInput {
  private parts: string[] = [];

  /** True while a continued input waits for its next line. */
  get pending(): boolean {
    return this.parts.length > 0;
  }

  /** Adds one typed line; returns the complete input, or undefined when the input continues. */
  push(line: string): string | undefined {
    if (line.endsWith('\\')) {
      this.parts.push(line.slice(0, -1));
      return undefined;
    }
    const complete = [...this.parts, line].join('\n');
    this.parts = [];
    return complete;
  }

  /** Drops a half-typed continued input. */
  clear(): void {
    this.parts = [];
  }
}
