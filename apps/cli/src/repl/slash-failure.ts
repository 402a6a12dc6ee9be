import { terminalLine } from '@forge/core/terminal';
import type { Style } from '../output/style.js';
import type { SlashOutcome } from './slash-commands.js';

/**
 * Runs the work of a slash command. A failure is printed as one red `error:` line (with `after()`
 * appended, such as what is still in effect) and the REPL carries on either way.
 */
export async function continueAfterFailure(
  context: { readonly print: (text: string) => void; readonly style: Style },
  work: () => Promise<void>,
  after?: () => string,
): Promise<SlashOutcome> {
  try {
    await work();
  } catch (error) {
    const message = context.style.red(`error: ${terminalLine(error instanceof Error ? error.message : String(error))}`);
    context.print(`${message}${after === undefined ? '' : ` ${after()}`}\n`);
  }
  return 'continue';
}
