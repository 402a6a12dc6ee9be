import type { InstructionSnapshot } from '@forge/core';
import { loadInstructions } from '@forge/tools';

/**
 * The instructions loader of a setup: `loadInstructions` for `root` afresh on every call (each run
 * freezes what it got), telling `warn` once per process about each instruction file it refused
 * (a link out of the repository, a FIFO, a hard link), however many turns load them again.
 * Loaders for other system prompts of the same process pass the same `told`, so a refused file is
 * reported once whichever prompt loads it.
 */
export function workspaceInstructions(
  root: string,
  systemPrompt: string,
  warn: (message: string) => void,
  told: Set<string> = new Set(),
): () => Promise<InstructionSnapshot> {
  return () =>
    loadInstructions({
      workspaceRoot: root,
      systemPrompt,
      onWarning: (message) => {
        if (told.has(message)) return;
        told.add(message);
        warn(message);
      },
    });
}
