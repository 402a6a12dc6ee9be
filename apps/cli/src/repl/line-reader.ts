import { createInterface, type Interface } from 'node:readline';
import type { CliInput, CliOutput } from '../io.js';
import { createTerminalLineReader } from './terminal-line-reader.js';

/** Reads lines for the REPL: the prompt, approvals and continued input all come through here. */
export interface LineReader {
  /**
   * Shows `prompt` and resolves with the next line, or undefined once input has ended (Ctrl-D,
   * end of stream, `close`). Lines typed ahead are returned in order. Rejects when `signal` aborts.
   */
  next(
    prompt: string,
    options?: { readonly signal?: AbortSignal; readonly remember?: boolean },
  ): Promise<string | undefined>;
  /**
   * Adds `entry` to the history Up recalls (a terminal only): for input the caller assembled from
   * several lines read with `remember: false`, such as a `\`-continued one, so it comes back whole.
   */
  remember(entry: string): void;
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
 * The REPL's line reader. With a terminal on both ends it is Forge's own line editor
 * (`createTerminalLineReader`: grapheme-aware editing, history, Tab completion with `completer`);
 * otherwise `node:readline` reads plain lines and the prompt is written with each line received,
 * so the output reads as a transcript.
 */
export function createLineReader(options: {
  readonly input: CliInput;
  readonly output: CliOutput;
  /** Tab completion on a terminal: the whole-line completions of `line`, and `line`. */
  readonly completer?: (line: string) => [string[], string];
  /** Shown on a terminal before each further line of a recalled multi-line entry. */
  readonly continuationPrompt?: string;
}): LineReader {
  if (options.input.isTTY === true && options.output.isTTY === true) return createTerminalLineReader(options);
  const readline: Interface = createInterface({ input: options.input, output: options.output, terminal: false });
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

  return {
    get closed() {
      return closed;
    },
    partial: '',
    next(prompt, { signal } = {}) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      const deliver = (line: string | undefined): string | undefined => {
        if (line !== undefined) options.output.write(`${prompt}${line}\n`);
        return line;
      };
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
    remember() {},
    reprompt() {},
    clearPartial() {},
    onInterrupt(listener) {
      readline.on('SIGINT', listener);
    },
    close() {
      if (!closed) readline.close();
    },
  };
}
