import type { TerminationSignal } from './io.js';

/** Exit codes of `forge`. Scripts branch on them, so they never change meaning. */
export const ExitCode = {
  /** The command did what was asked; a run completed. */
  ok: 0,
  /** A run failed, hit a limit or its step limit; or an unexpected error. */
  failure: 1,
  /** The command line or configuration is wrong: bad flag, unknown provider, missing API key, bad --cwd. */
  usage: 2,
  /** Cancelled with Ctrl-C (128 + SIGINT). */
  cancelled: 130,
  /** Ended by SIGHUP, e.g. its terminal was closed (128 + 1); a run in progress was cancelled first. */
  hangUp: 129,
  /** Ended by SIGTERM (128 + 15); a run in progress was cancelled first. */
  terminated: 143,
  /** Stdout's reader went away (128 + SIGPIPE's 13); a run in progress was cancelled and recorded first. */
  brokenPipe: 141,
} as const;

/** The exit code of a Forge ended by `signal`, by the shell convention 128 + signal number. */
export function exitCodeForSignal(signal: TerminationSignal): ExitCodeValue {
  if (signal === 'SIGPIPE') return ExitCode.brokenPipe;
  return signal === 'SIGTERM' ? ExitCode.terminated : ExitCode.hangUp;
}

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];
