import type { InstructionSnapshot } from '@forge/core';
import { loadInstructions } from '@forge/tools';

/** Where instructions are loaded from, and who hears about refused instruction files. */
export interface InstructionsLoaderOptions {
  readonly root: string;
  /** Where the user's own AGENTS.md is looked for; default the real home directory. */
  readonly homeDirectory?: string;
  readonly warn: (message: string) => void;
}

/**
 * The instructions loader of one process, per system prompt: each loader runs `loadInstructions`
 * for `root` afresh on every call (each run freezes what it got), and `warn` hears once per process
 * about each instruction file refused (a link out of the repository, a FIFO, a hard link), however
 * many turns and system prompts load it again.
 */
export function createInstructionsLoader(
  options: InstructionsLoaderOptions,
): (systemPrompt: string) => () => Promise<InstructionSnapshot> {
  const told = new Set<string>();
  const onWarning = (message: string) => {
    if (told.has(message)) return;
    told.add(message);
    options.warn(message);
  };
  const loaders = new Map<string, () => Promise<InstructionSnapshot>>();
  return (systemPrompt) => {
    const known = loaders.get(systemPrompt);
    if (known !== undefined) return known;
    const loader = () =>
      loadInstructions({
        workspaceRoot: options.root,
        systemPrompt,
        onWarning,
        ...(options.homeDirectory === undefined ? {} : { homeDirectory: options.homeDirectory }),
      });
    loaders.set(systemPrompt, loader);
    return loader;
  };
}
