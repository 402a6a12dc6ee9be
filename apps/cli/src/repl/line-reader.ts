import { createInterface, type Completer, type Interface } from 'node:readline';
import type { CliInput, CliOutput } from '../io.js';

/** Reads lines for the REPL: the prompt, approvals and continued input all come through here. */
export interface LineReader {
  /**
   * Shows `prompt` and resolves with the next line, or undefined once input has ended (Ctrl-D,
   * end of stream, `close`). Lines typed ahead are returned in order. Rejects when `signal` aborts.
   */
  next(prompt: string, options?: { readonly signal?: AbortSignal; readonly remember?: boolean }): Promise<string | undefined>;
  /** Shows the current prompt again (after something else was printed). */
  reprompt(): void;
  /** Text typed on the current line but not yet entered (always empty without a terminal). */
  readonly partial: string;
  /** Discards the text typed on the current line. */
  clearPartial(): void;
  /** Called for Ctrl-C typed in the terminal (raw mode delivers it as a key, not a signal). */
  onInterrupt(listener: () => void): void;
  readonly closed: boolean;
  close(): void;
}

/**
 * A `node:readline` line reader. With a terminal on both ends it edits lines, keeps history
 * within the process and completes with `completer`; otherwise it reads plain lines.
 */
export function createLineReader(options: { readonly input: CliInput; readonly output: CliOutput; readonly completer?: Completer }): LineReader {
  const terminal = options.input.isTTY === true && options.output.isTTY === true;
  const readline: Interface = createInterface({
    input: options.input,
    output: options.output,
    terminal,
    historySize: 1000,
    removeHistoryDuplicates: true,
    ...(terminal && options.completer !== undefined ? { completer: options.completer } : {}),
  });
  const typedAhead: string[] = [];
  let waiting: ((line: string | undefined) => void) | undefined;
  let closed = false;

  readline.on('line', (line) => {
    if (waiting === undefined) typedAhead.push(line);
    else waiting(line);
  });
  readline.on('close', () => {
    closed = true;
    waiting?.(undefined);
  });
  // A terminal that went away (its window closed) fails the reset of raw mode with EIO: that is
  // the end of the input, and the REPL still has to close its session, so it is not a crash.
  readline.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EIO') throw error;
  });

  return {
    get closed() {
      return closed;
    },
    get partial() {
      return terminal ? readline.line : '';
    },
    next(prompt, { signal, remember = true } = {}) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      // Without a terminal nothing is echoed, so the prompt is written together with the line
      // it received: the output then reads as a transcript.
      const deliver = (line: string | undefined): string | undefined => {
        if (line !== undefined && !terminal) options.output.write(`${prompt}${line}\n`);
        if (line !== undefined && !remember && terminal) forgetLatest(readline, line);
        return line;
      };
      if (terminal && !closed) {
        readline.setPrompt(prompt);
        readline.prompt();
      }
      const early = typedAhead.shift();
      if (early !== undefined) return Promise.resolve(deliver(early));
      if (closed) return Promise.resolve(undefined);
      return new Promise<string | undefined>((resolve, reject) => {
        const onAbort = () => {
          waiting = undefined;
          reject(signal?.reason);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        waiting = (line) => {
          waiting = undefined;
          signal?.removeEventListener('abort', onAbort);
          resolve(deliver(line));
        };
      });
    },
    reprompt() {
      if (terminal && !closed) readline.prompt();
    },
    clearPartial() {
      if (!terminal || closed) return;
      readline.write(null, { ctrl: true, name: 'e' });
      readline.write(null, { ctrl: true, name: 'u' });
    },
    onInterrupt(listener) {
      readline.on('SIGINT', listener);
    },
    close() {
      if (!closed) readline.close();
    },
  };
}

/** Drops `line` from the newest end of the history (approval answers are not worth recalling). */
function forgetLatest(readline: Interface, line: string): void {
  const history = (readline as Interface & { history?: string[] }).history;
  if (history?.[0] === line) history.shift();
}
