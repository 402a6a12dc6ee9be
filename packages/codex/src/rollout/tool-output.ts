import { truncateText } from '@forge/core/checkpoint';
import type { ToolOutputValue } from './rollout-schema.js';

/** What the importer understands of one tool output. */
export interface ParsedToolOutput {
  readonly text: string;
  /** The exit code the output states, when it states one. */
  readonly exitCode: number | undefined;
  /** Codex reported that the user's approval policy refused the action. */
  readonly declined: boolean;
  /** A legacy `{success}` flag, when present. */
  readonly success: boolean | undefined;
}

const legacyShellOutput = /^\s*\{\s*"output"\s*:/;

/**
 * Normalizes the output shapes Codex has used: plain text (`Exit code: N` or `Process exited
 * with code N` headers), the older JSON string `{"output": ..., "metadata": {"exit_code": N}}`,
 * `{content, success}` objects and lists of content items.
 */
export function parseToolOutput(value: ToolOutputValue): ParsedToolOutput {
  let text: string;
  let success: boolean | undefined;
  if (typeof value === 'string') text = value;
  else if (Array.isArray(value)) text = value.map((part) => part.text ?? '').join('');
  else {
    text = value.content ?? '';
    success = value.success ?? undefined;
  }
  let exitCode: number | undefined;
  if (legacyShellOutput.test(text)) {
    try {
      const legacy = JSON.parse(text) as { output?: unknown; metadata?: { exit_code?: unknown } };
      if (typeof legacy.output === 'string') text = legacy.output;
      if (typeof legacy.metadata?.exit_code === 'number') exitCode = legacy.metadata.exit_code;
    } catch {
      // Not the legacy envelope after all; keep the text as it is.
    }
  }
  exitCode ??= statedExitCode(text);
  const declined = /\brejected by user\b/.test(text);
  return { text, exitCode, declined, success };
}

function statedExitCode(text: string): number | undefined {
  const head = text.slice(0, 400);
  const match = /^(?:Exit code:|Process exited with code) (-?\d+)\s*$/m.exec(head);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

const headerLine =
  /^(?:Chunk ID:|Wall time:|Process exited with code -?\d+|Exit code:|Original token count:|Total output lines:)/;

/**
 * The command's own output without the header lines Codex puts before it (`Exit code: 0`,
 * `Wall time: …`, `Output:`).
 */
export function outputBody(text: string): string {
  const lines = text.split('\n');
  let index = 0;
  while (index < lines.length && headerLine.test(lines[index] ?? '')) index += 1;
  if (index > 0 && lines[index] === 'Output:') return lines.slice(index + 1).join('\n');
  return index > 0 ? lines.slice(index).join('\n') : text;
}

/** The first non-empty line of `text`, at most `limit` characters, for one-line failure notes. */
export function firstLine(text: string, limit = 160): string {
  const line =
    text
      .split('\n')
      .find((candidate) => candidate.trim().length > 0)
      ?.trim() ?? '';
  return truncateText(line, limit);
}
