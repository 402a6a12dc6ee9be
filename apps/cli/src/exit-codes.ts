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
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];
