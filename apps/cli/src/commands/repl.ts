import type { ReplOptions } from '../program.js';
import type { CommandInvocation } from './command.js';

/** `forge` without a command: the interactive REPL. */
export async function execute({ options, io }: CommandInvocation<ReplOptions>): Promise<number> {
  const { startRepl } = await import('../repl/repl.js');
  return startRepl({ io, globals: options });
}
