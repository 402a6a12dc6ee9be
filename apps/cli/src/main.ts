import { CommanderError } from 'commander';
import { reportError } from './cli-error.js';
import { ExitCode } from './exit-codes.js';
import { processIo, type CliIo } from './io.js';
import { createProgram } from './program.js';

/**
 * Runs `forge` with `argv` shaped like `process.argv` (node, script, then the user's arguments)
 * and returns the exit code. Never throws and never calls `process.exit`; `io` replaces the
 * process's streams, environment and interrupts, which is how tests drive the CLI in process.
 */
export async function main(argv: readonly string[], io: Partial<CliIo> = {}): Promise<number> {
  const cliIo: CliIo = { ...processIo(), ...io };
  let exitCode: number = ExitCode.ok;
  const program = createProgram(cliIo, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync([...argv], { from: 'node' });
    return exitCode;
  } catch (error) {
    // commander has already printed its own message (help, version, or a usage error).
    if (error instanceof CommanderError) return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    return reportError(error, cliIo);
  }
}
