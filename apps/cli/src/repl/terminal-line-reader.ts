import { emitKeypressEvents } from 'node:readline';
import type { CliInput, CliOutput } from '../io.js';
import { graphemes, graphemeWidth, textWidth } from '../output/text-width.js';
import { LineBuffer } from './line-buffer.js';
import type { LineReader } from './line-reader.js';

/** A key as `emitKeypressEvents` reports it. */
interface Key {
  readonly name?: string;
  readonly sequence?: string;
  readonly ctrl?: boolean;
  readonly meta?: boolean;
  readonly shift?: boolean;
}

type RawInput = CliInput & { setRawMode?(mode: boolean): unknown; readonly isRaw?: boolean };

const HISTORY_SIZE = 1000;

/** Row and column (0-based) the end of `text` reaches on a terminal `columns` wide, a wide character never split over two rows. */
function displayPosition(text: string, columns: number): { readonly row: number; readonly column: number } {
  let row = 0;
  let column = 0;
  for (const grapheme of graphemes(text)) {
    if (grapheme === '\n') {
      row += 1;
      column = 0;
      continue;
    }
    const width = graphemeWidth(grapheme);
    if (column + width > columns) {
      row += 1;
      column = 0;
    }
    column += width;
    if (column >= columns) {
      row += 1;
      column = 0;
    }
  }
  return { row, column };
}

/**
 * The REPL's line editor on a terminal, in raw mode: it keeps the line in a `LineBuffer`, so the
 * cursor moves and deletes by grapheme (an emoji, a flag or an accented letter is one step) and
 * the line never holds a broken character. It draws the prompt and the line itself (wrapped over
 * several rows when long), keeps a history, completes with Tab, and reports Ctrl-C as a key.
 */
export function createTerminalLineReader(options: {
  readonly input: CliInput;
  readonly output: CliOutput;
  readonly completer?: (line: string) => [string[], string];
  readonly continuationPrompt?: string;
}): LineReader {
  const input = options.input as RawInput;
  const { output } = options;
  const buffer = new LineBuffer();
  const history: string[] = [];
  const interruptListeners: (() => void)[] = [];
  const typedAhead: string[] = [];
  let historyIndex = -1;
  let draft = '';
  let prompt = '';
  let active = false;
  let cursorRow = 0;
  let closed = false;
  let remember = true;
  let waiting: ((line: string | undefined) => void) | undefined;
  let lastKeyWasTab = false;

  const columns = () => Math.max(10, output.columns ?? 80);
  // A recalled multi-line entry shows each further line after the continuation prompt, as it was typed.
  const shown = (text: string) => `${prompt}${text.replaceAll('\n', `\n${options.continuationPrompt ?? ''}`)}`;

  /** Redraws the prompt and the line from the prompt's first row, and puts the cursor in place. */
  const render = () => {
    if (!active) return;
    const width = columns();
    const whole = shown(buffer.text);
    const end = displayPosition(whole, width);
    const cursor = displayPosition(shown(buffer.beforeCursor), width);
    let drawn = cursorRow > 0 ? `\u001b[${cursorRow}A` : '';
    drawn += `\r\u001b[J${whole.replaceAll('\n', '\r\n')}`;
    // At the exact end of a row the terminal waits to wrap; a space makes it move to the next row.
    if (end.column === 0 && whole.length > 0 && textWidth(whole) > 0) drawn += ' \r';
    const up = end.row - cursor.row;
    if (up > 0) drawn += `\u001b[${up}A`;
    drawn += `\r${cursor.column > 0 ? `\u001b[${cursor.column}C` : ''}`;
    output.write(drawn);
    cursorRow = cursor.row;
  };

  /** Moves below the line (after Enter, or before output that must not overwrite it). */
  const leaveLine = () => {
    const width = columns();
    const end = displayPosition(shown(buffer.text), width);
    const down = end.row - cursorRow;
    output.write(`${down > 0 ? `\u001b[${down}B` : ''}\r\n`);
    cursorRow = 0;
  };

  const deliver = (line: string | undefined) => {
    const resolve = waiting;
    waiting = undefined;
    if (resolve === undefined) {
      if (line !== undefined) typedAhead.push(line);
      return;
    }
    resolve(line);
  };

  const addToHistory = (entry: string) => {
    if (entry.trim() === '') return;
    const previous = history.indexOf(entry);
    if (previous !== -1) history.splice(previous, 1);
    history.unshift(entry);
    if (history.length > HISTORY_SIZE) history.pop();
  };

  const submit = () => {
    const line = buffer.text;
    if (active) leaveLine();
    active = false;
    if (remember) addToHistory(line);
    buffer.clear();
    historyIndex = -1;
    deliver(line);
  };

  const recall = (direction: 1 | -1) => {
    const next = historyIndex + direction;
    if (next < -1 || next >= history.length) return;
    if (historyIndex === -1) draft = buffer.text;
    historyIndex = next;
    buffer.set(next === -1 ? draft : (history[next] ?? ''));
  };

  const complete = () => {
    if (options.completer === undefined) return;
    const typed = buffer.text;
    const [matches] = options.completer(typed);
    if (matches.length === 0) return;
    if (matches.length === 1 && matches[0] !== undefined) {
      buffer.set(matches[0]);
      return;
    }
    const common = matches.reduce((prefix, match) => {
      let length = 0;
      while (length < prefix.length && prefix[length] === match[length]) length += 1;
      return prefix.slice(0, length);
    });
    if (common.length > typed.length) {
      buffer.set(common);
    } else if (lastKeyWasTab) {
      leaveLine();
      // `/model openai:gpt-5.1` and `/model openai:gpt-5.2` list as `openai:gpt-5.1  openai:gpt-5.2`: the words typed are not repeated.
      const shared = typed.slice(0, typed.lastIndexOf(' ') + 1);
      const shown = matches.map((match) =>
        shared !== '' && match.startsWith(shared) ? match.slice(shared.length) : match,
      );
      output.write(`${shown.join('  ')}\r\n`);
      cursorRow = 0;
    }
  };

  /*
   * A terminal that changes width re-wraps the rows it shows (tmux, most emulators), and the cursor
   * stays on its character: so the row the cursor is on within the line is the one at the new
   * width. Without taking it, the next redraw starts from the wrong row and leaves a copy behind.
   */
  const onResize = () => {
    if (!active) return;
    cursorRow = displayPosition(shown(buffer.beforeCursor), columns()).row;
    render();
  };

  const close = () => {
    if (closed) return;
    closed = true;
    output.removeListener('resize', onResize);
    input.removeListener('keypress', onKeypress);
    input.removeListener('end', onEnd);
    if (input.isTTY === true) input.setRawMode?.(false);
    input.pause();
    if (active) leaveLine();
    active = false;
    deliver(undefined);
  };

  function onEnd(): void {
    close();
  }

  // A terminal that went away (its window closed) fails reads and the reset of raw mode with EIO:
  // that is the end of the input, and the REPL still has to close its session, so it is not a crash.
  function onInputError(error: NodeJS.ErrnoException): void {
    if (error.code !== 'EIO') throw error;
    close();
  }

  function onKeypress(text: string | undefined, key: Key | undefined): void {
    if (closed) return;
    const name = key?.name;
    const ctrl = key?.ctrl === true;
    const meta = key?.meta === true;
    const wasTab = lastKeyWasTab;
    lastKeyWasTab = false;
    if (ctrl && name === 'c') {
      for (const listener of interruptListeners) listener();
      return;
    }
    if (ctrl && name === 'd') {
      if (buffer.text === '') close();
      else buffer.deleteForward();
    } else if (name === 'return' || name === 'enter') {
      submit();
      return;
    } else if (name === 'tab') {
      lastKeyWasTab = wasTab;
      complete();
      lastKeyWasTab = true;
    } else if (name === 'backspace') {
      if (meta || ctrl) buffer.deleteWordLeft();
      else buffer.backspace();
    } else if (name === 'delete') {
      buffer.deleteForward();
    } else if ((name === 'left' && (ctrl || meta)) || (meta && name === 'b')) {
      buffer.wordLeft();
    } else if ((name === 'right' && (ctrl || meta)) || (meta && name === 'f')) {
      buffer.wordRight();
    } else if (name === 'left' || (ctrl && name === 'b')) {
      buffer.left();
    } else if (name === 'right' || (ctrl && name === 'f')) {
      buffer.right();
    } else if (name === 'home' || (ctrl && name === 'a')) {
      buffer.home();
    } else if (name === 'end' || (ctrl && name === 'e')) {
      buffer.end();
    } else if (ctrl && name === 'w') {
      buffer.deleteWordLeft();
    } else if (ctrl && name === 'u') {
      buffer.deleteToStart();
    } else if (ctrl && name === 'k') {
      buffer.deleteToEnd();
    } else if (name === 'up' || (ctrl && name === 'p')) {
      recall(1);
    } else if (name === 'down' || (ctrl && name === 'n')) {
      recall(-1);
    } else if (ctrl && name === 'l') {
      output.write('\u001b[2J\u001b[H');
      cursorRow = 0;
    } else if (!ctrl && !meta && text !== undefined && text !== '' && name !== 'escape') {
      buffer.insert(text);
    } else {
      return;
    }
    render();
  }

  emitKeypressEvents(input);
  if (input.isTTY === true) input.setRawMode?.(true);
  input.on('keypress', onKeypress);
  input.on('end', onEnd);
  output.on('resize', onResize);
  input.on('error', onInputError);
  input.resume();

  return {
    get closed() {
      return closed;
    },
    get partial() {
      return buffer.text;
    },
    next(nextPrompt, { signal, remember: keep = true } = {}) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      const early = typedAhead.shift();
      if (early !== undefined) {
        // Typed while output was running, so never shown: show it now with its prompt, as a transcript reads.
        output.write(`${nextPrompt}${early}\r\n`);
        return Promise.resolve(early);
      }
      if (closed) return Promise.resolve(undefined);
      prompt = nextPrompt;
      remember = keep;
      active = true;
      cursorRow = 0;
      render();
      return new Promise<string | undefined>((resolve, reject) => {
        const onAbort = () => {
          waiting = undefined;
          if (active) leaveLine();
          active = false;
          reject(signal?.reason);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        waiting = (line) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(line);
        };
      });
    },
    remember: addToHistory,
    reprompt() {
      if (closed || waiting === undefined) return;
      active = true;
      cursorRow = 0;
      render();
    },
    clearPartial() {
      buffer.clear();
      render();
    },
    onInterrupt(listener) {
      interruptListeners.push(listener);
    },
    close,
  };
}
