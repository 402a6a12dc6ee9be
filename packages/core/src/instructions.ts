import { sha256Hex } from './hashing.js';

export interface InstructionSource {
  /** Where the text came from, as the caller names it (a path, `system`, ...). */
  readonly origin: string;
  readonly sha256: string;
}

/** The instructions of one run, loaded once at its start and never changed while it runs. */
export interface InstructionSnapshot {
  readonly text: string;
  readonly sources: readonly InstructionSource[];
  /** SHA-256 of `text`; identical for every model attempt of the run. */
  readonly hash: string;
}

/**
 * Joins a base system prompt and instruction files, outermost first, into one snapshot. Each file
 * is introduced by its origin so the model can tell where a rule came from.
 */
export function createInstructionSnapshot(
  systemPrompt: string,
  files: readonly { readonly origin: string; readonly content: string }[] = [],
): InstructionSnapshot {
  const sections = [systemPrompt.trimEnd()];
  for (const file of files) sections.push(`# Instructions from ${file.origin}\n\n${file.content.trimEnd()}`);
  const text = sections.filter((section) => section.length > 0).join('\n\n');
  return {
    text,
    sources: files.map((file) => ({ origin: file.origin, sha256: sha256Hex(file.content) })),
    hash: sha256Hex(text),
  };
}
