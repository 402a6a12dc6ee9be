import { terminalLine } from '@forge/core/terminal';
import { ExitCode, type ExitCodeValue } from './exit-codes.js';
import type { CliIo } from './io.js';

/**
 * An error the CLI reports as one line, `forge: error: <message>`, with a chosen exit code. This
 * module must stay free of heavy imports: `main` loads it for every invocation.
 */
export class CliError extends Error {
  readonly exitCode: ExitCodeValue;

  constructor(message: string, exitCode: ExitCodeValue = ExitCode.failure) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}

/** A mistake in the command line or configuration; exits with code 2. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, ExitCode.usage);
    this.name = 'UsageError';
  }
}

/**
 * Writes `error` to stderr as one line and returns the exit code to use. The stack trace is
 * printed only when `FORGE_DEBUG=1`.
 */
export function reportError(error: unknown, io: Pick<CliIo, 'stderr' | 'env'>): ExitCodeValue {
  const message = error instanceof Error ? error.message : String(error);
  io.stderr.write(`forge: error: ${oneLine(message)}\n`);
  if (io.env.FORGE_DEBUG === '1' && error instanceof Error && error.stack !== undefined) {
    io.stderr.write(`${error.stack}\n`);
  }
  if (error instanceof CliError) return error.exitCode;
  return USAGE_ERROR_CODES.has(String((error as { readonly code?: unknown } | undefined)?.code))
    ? ExitCode.usage
    : ExitCode.failure;
}

/**
 * Codes of the packages' typed errors (`ForgeError.code`) that the user fixes in the command line
 * or the setup, so they exit with 2 wherever they are thrown. Matched by code to keep this module light.
 */
const USAGE_ERROR_CODES: ReadonlySet<string> = new Set(['forge_home_unusable']);

function oneLine(message: string): string {
  return terminalLine(message.replace(/\s*\n\s*/g, ' ').trim());
}
