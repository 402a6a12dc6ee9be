import type { ModelProvider } from './models/resolve-model.js';

/** A stream the CLI writes to. `process.stdout`, `process.stderr` and test streams all fit. */
export type CliOutput = NodeJS.WritableStream & {
  readonly isTTY?: boolean | undefined;
  readonly columns?: number | undefined;
};

/** The stream the REPL reads lines from. */
export type CliInput = NodeJS.ReadableStream & { readonly isTTY?: boolean };

/**
 * Everything the CLI touches outside its own code. `main` receives it so tests drive the CLI in
 * process with their own streams, environment and interrupts instead of spawning it.
 */
export interface CliIo {
  readonly stdout: CliOutput;
  readonly stderr: CliOutput;
  readonly stdin: CliInput;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Directory relative paths (such as `--cwd`) are resolved against. */
  readonly cwd: string;
  /** Subscribes to Ctrl-C delivered as a signal (SIGINT); returns the unsubscribe function. */
  readonly onInterrupt: (listener: () => void) => () => void;
  /**
   * Subscribes to a request to end the process: SIGTERM, or SIGHUP when its terminal closed.
   * A run ends as after Ctrl-C, then Forge exits; returns the unsubscribe function.
   */
  readonly onTerminate: (listener: (signal: TerminationSignal) => void) => () => void;
  /** Model providers consulted before the built-in ones; tests inject scripted models here. */
  readonly modelProviders?: readonly ModelProvider[];
}

/**
 * The signals that end Forge the way Ctrl-C cancels a run. `SIGPIPE` stands for the reader of
 * stdout going away (`forge run --json … | head`): Node reports it as an EPIPE write error.
 */
export type TerminationSignal = 'SIGTERM' | 'SIGHUP' | 'SIGPIPE';

/** The real process: its streams, environment, working directory, SIGINT, SIGTERM and SIGHUP. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    onInterrupt: (listener) => {
      process.on('SIGINT', listener);
      return () => process.off('SIGINT', listener);
    },
    onTerminate: (listener) => {
      const handlers = (['SIGTERM', 'SIGHUP'] as const).map((signal) => {
        const handler = () => listener(signal);
        process.on(signal, handler);
        return () => process.off(signal, handler);
      });
      // Nobody reads the rest of the output: cancel as a SIGPIPE would, but record the run first.
      const brokenPipe = (error: NodeJS.ErrnoException) => {
        if (error.code === 'EPIPE') listener('SIGPIPE');
      };
      process.stdout.on('error', brokenPipe);
      return () => {
        for (const remove of handlers) remove();
        process.stdout.off('error', brokenPipe);
      };
    },
  };
}
