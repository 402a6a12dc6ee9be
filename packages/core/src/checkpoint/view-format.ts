import { truncateWithoutClaims } from './authority-text.js';
import type { CheckpointCaps } from './caps.js';
import type { EvidenceRef } from './schema.js';
import { oneLine } from './text.js';

/** Writes the lines of a view; every line is cut to `maxLineChars` and stripped of approval claims. */
export class ViewWriter {
  private readonly lines: string[] = [];

  constructor(private readonly caps: CheckpointCaps) {}

  line(text: string): void {
    this.lines.push(truncateWithoutClaims(text, this.caps.maxLineChars));
  }

  /** A value on one line, cut to `maxValueChars`. */
  value(text: string): string {
    return truncateWithoutClaims(oneLine(text), this.caps.maxValueChars);
  }

  /** A titled list, `- (none)` when empty, and a count of the items left out when there are any. */
  section(title: string, items: readonly string[], omitted = 0): void {
    this.line(`[${title}]`);
    if (items.length === 0 && omitted === 0) this.line('- (none)');
    for (const item of items) this.line(`- ${item}`);
    if (omitted > 0) this.line(`- (${omitted} more not shown)`);
    this.line('');
  }

  toString(): string {
    return `${this.lines.join('\n')}\n`;
  }
}

/** Evidence as the view shows it: `user#4`, `call:abc`, `file:src/a.ts`. */
export function formatEvidence(evidence: EvidenceRef): string {
  if (evidence.source === 'user') return `user#${evidence.messageIndex}`;
  if (evidence.source === 'tool-call') return `call:${evidence.toolCallId}`;
  return evidence.uri;
}
