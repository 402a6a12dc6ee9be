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

/** Everything the line editor keeps between keys: the line, the history, and what the terminal shows. */
interface EditorState {
  readonly input: RawInput;
  readonly output: CliOutput;
  readonly completer: ((line: string) => [string[], string]) | undefined;
  readonly continuationPrompt: string | undefined;
  readonly buffer: LineBuffer;
  readonly history: string[];
  readonly interruptListeners: (() => void)[];
  readonly typedAhead: string[];
  historyIndex: number;
  draft: string;
  prompt: string;
  active: boolean;
  cursorRow: number;
  closed: boolean;
  remember: boolean;
  waiting: ((line: string | undefined) => void) | undefined;
  lastKeyWasTab: boolean;
}

const columns = (state: EditorState) => Math.max(10, state.output.columns ?? 80);

// A recalled multi-line entry shows each further line after the continuation prompt, as it was typed.
const shown = (state: EditorState, text: string) =>
  `${state.prompt}${text.replaceAll('\n', `\n${state.continuationPrompt ?? ''}`)}`;

/** Redraws the prompt and the line from the prompt's first row, and puts the cursor in place. */
function render(state: EditorState): void {
  if (!state.active) return;
  const width = columns(state);
  const whole = shown(state, state.buffer.text);
  const end = displayPosition(whole, width);
  const cursor = displayPosition(shown(state, state.buffer.beforeCursor), width);
  let drawn = state.cursorRow > 0 ? `\u001b[${state.cursorRow}A` : '';
  drawn += `\r\u001b[J${whole.replaceAll('\n', '\r\n')}`;
  // At the exact end of a row the terminal waits to wrap; a space makes it move to the next row.
  if (end.column === 0 && whole.length > 0 && textWidth(whole) > 0) drawn += ' \r';
  const up = end.row - cursor.row;
  if (up > 0) drawn += `\u001b[${up}A`;
  drawn += `\r${cursor.column > 0 ? `\u001b[${cursor.column}C` : ''}`;
  state.output.write(drawn);
  state.cursorRow = cursor.row;
}

/** Moves below the line (after Enter, or before output that must not overwrite it). */
function leaveLine(state: EditorState): void {
  const width = columns(state);
  const end = displayPosition(shown(state, state.buffer.text), width);
  const down = end.row - state.cursorRow;
  state.output.write(`${down > 0 ? `\u001b[${down}B` : ''}\r\n`);
  state.cursorRow = 0;
}

/** Hands `line` to the caller waiting in `next`, or keeps it for the next call when nobody waits. */
function deliver(state: EditorState, line: string | undefined): void {
  const resolve = state.waiting;
  state.waiting = undefined;
  if (resolve === undefined) {
    if (line !== undefined) state.typedAhead.push(line);
    return;
  }
  resolve(line);
}

/** Puts `entry` first in the history (moved there if it was already in it), keeping at most `HISTORY_SIZE`. */
function addToHistory(history: string[], entry: string): void {
  if (entry.trim() === '') return;
  const previous = history.indexOf(entry);
  if (previous !== -1) history.splice(previous, 1);
  history.unshift(entry);
  if (history.length > HISTORY_SIZE) history.pop();
}

function submit(state: EditorState): void {
  const line = state.buffer.text;
  if (state.active) leaveLine(state);
  state.active = false;
  if (state.remember) addToHistory(state.history, line);
  state.buffer.clear();
  state.historyIndex = -1;
  deliver(state, line);
}

/** Steps through the history (1: older, -1: newer), the line being typed kept as the newest entry. */
function recall(state: EditorState, direction: 1 | -1): void {
  const next = state.historyIndex + direction;
  if (next < -1 || next >= state.history.length) return;
  if (state.historyIndex === -1) state.draft = state.buffer.text;
  state.historyIndex = next;
  state.buffer.set(next === -1 ? state.draft : (state.history[next] ?? ''));
}

function commonPrefix(matches: string[]): string {
  return matches.reduce((prefix, match) => {
    let length = 0;
    while (length < prefix.length && prefix[length] === match[length]) length += 1;
    return prefix.slice(0, length);
  });
}

/** Tab: completes the line as far as the matches agree; a second Tab lists them below the line. */
function complete(state: EditorState): void {
  if (state.completer === undefined) return;
  const typed = state.buffer.text;
  const [matches] = state.completer(typed);
  if (matches.length === 0) return;
  if (matches.length === 1 && matches[0] !== undefined) {
    state.buffer.set(matches[0]);
    return;
  }
  const common = commonPrefix(matches);
  if (common.length > typed.length) {
    state.buffer.set(common);
  } else if (state.lastKeyWasTab) {
    listMatches(state, typed, matches);
  }
}

function listMatches(state: EditorState, typed: string, matches: string[]): void {
  leaveLine(state);
  // `/model openai:gpt-5.1` and `/model openai:gpt-5.2` list as `openai:gpt-5.1  openai:gpt-5.2`: the words typed are not repeated.
  const shared = typed.slice(0, typed.lastIndexOf(' ') + 1);
  const listed = matches.map((match) =>
    shared !== '' && match.startsWith(shared) ? match.slice(shared.length) : match,
  );
  state.output.write(`${listed.join('  ')}\r\n`);
  state.cursorRow = 0;
}

/*
 * A terminal that changes width re-wraps the rows it shows (tmux, most emulators), and the cursor
 * stays on its character: so the row the cursor is on within the line is the one at the new
 * width. Without taking it, the next redraw starts from the wrong row and leaves a copy behind.
 */
function redrawAfterResize(state: EditorState): void {
  if (!state.active) return;
  state.cursorRow = displayPosition(shown(state, state.buffer.beforeCursor), columns(state)).row;
  render(state);
}

/** The listeners the reader puts on its input and output, removed again on close. */
interface EditorListeners {
  readonly onResize: () => void;
  readonly onKeypress: (text: string | undefined, key: Key | undefined) => void;
  readonly onEnd: () => void;
}

function closeEditor(state: EditorState, listeners: EditorListeners): void {
  if (state.closed) return;
  state.closed = true;
  const { input } = state;
  state.output.removeListener('resize', listeners.onResize);
  input.removeListener('keypress', listeners.onKeypress);
  input.removeListener('end', listeners.onEnd);
  if (input.isTTY === true) input.setRawMode?.(false);
  input.pause();
  if (state.active) leaveLine(state);
  state.active = false;
  deliver(state, undefined);
}

function handleKeypress(state: EditorState, text: string | undefined, key: Key | undefined, close: () => void): void {
  if (state.closed) return;
  const name = key?.name;
  const ctrl = key?.ctrl === true;
  const wasTab = state.lastKeyWasTab;
  state.lastKeyWasTab = false;
  if (ctrl && name === 'c') {
    for (const listener of state.interruptListeners) listener();
    return;
  }
  if (ctrl && name === 'd') {
    if (state.buffer.text === '') close();
    else state.buffer.deleteForward();
  } else if (name === 'return' || name === 'enter') {
    submit(state);
    return;
  } else if (name === 'tab') {
    state.lastKeyWasTab = wasTab;
    complete(state);
    state.lastKeyWasTab = true;
  } else if (!editLine(state, text, key)) {
    return;
  }
  render(state);
}

/** Applies an editing key (cursor moves, deletes, history, clear screen, typed text); false for a key it ignores. */
function editLine(state: EditorState, text: string | undefined, key: Key | undefined): boolean {
  const name = key?.name;
  const ctrl = key?.ctrl === true;
  const meta = key?.meta === true;
  if (moveOrDelete(state.buffer, name, ctrl, meta)) return true;
  if (name === 'up' || (ctrl && name === 'p')) {
    recall(state, 1);
  } else if (name === 'down' || (ctrl && name === 'n')) {
    recall(state, -1);
  } else if (ctrl && name === 'l') {
    state.output.write('\u001b[2J\u001b[H');
    state.cursorRow = 0;
  } else if (!ctrl && !meta && text !== undefined && text !== '' && name !== 'escape') {
    state.buffer.insert(text);
  } else {
    return false;
  }
  return true;
}

/** The keys that move the cursor or delete within the line; false for any other key. */
function moveOrDelete(buffer: LineBuffer, name: string | undefined, ctrl: boolean, meta: boolean): boolean {
  if (name === 'backspace') {
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
  } else {
    return false;
  }
  return true;
}

/** Shows `prompt` and waits for the line; a line typed ahead is shown with the prompt and returned at once. */
function readLine(
  state: EditorState,
  prompt: string,
  options: { readonly signal?: AbortSignal; readonly remember?: boolean },
): Promise<string | undefined> {
  const { signal, remember: keep = true } = options;
  if (signal?.aborted) return Promise.reject(signal.reason);
  const early = state.typedAhead.shift();
  if (early !== undefined) {
    // Typed while output was running, so never shown: show it now with its prompt, as a transcript reads.
    state.output.write(`${prompt}${early}\r\n`);
    return Promise.resolve(early);
  }
  if (state.closed) return Promise.resolve(undefined);
  state.prompt = prompt;
  state.remember = keep;
  state.active = true;
  state.cursorRow = 0;
  render(state);
  return new Promise<string | undefined>((resolve, reject) => {
    const onAbort = () => {
      state.waiting = undefined;
      if (state.active) leaveLine(state);
      state.active = false;
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    state.waiting = (line) => {
      signal?.removeEventListener('abort', onAbort);
      resolve(line);
    };
  });
}

function newEditorState(options: {
  readonly input: CliInput;
  readonly output: CliOutput;
  readonly completer?: (line: string) => [string[], string];
  readonly continuationPrompt?: string;
}): EditorState {
  return {
    input: options.input as RawInput,
    output: options.output,
    completer: options.completer,
    continuationPrompt: options.continuationPrompt,
    buffer: new LineBuffer(),
    history: [],
    interruptListeners: [],
    typedAhead: [],
    historyIndex: -1,
    draft: '',
    prompt: '',
    active: false,
    cursorRow: 0,
    closed: false,
    remember: true,
    waiting: undefined,
    lastKeyWasTab: false,
  };
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
  const state = newEditorState(options);
  const { input, output } = state;
  const onResize = () => redrawAfterResize(state);
  const close = () => closeEditor(state, { onResize, onKeypress, onEnd });

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
    handleKeypress(state, text, key, close);
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
      return state.closed;
    },
    get partial() {
      return state.buffer.text;
    },
    next: (nextPrompt, nextOptions = {}) => readLine(state, nextPrompt, nextOptions),
    remember: (entry) => addToHistory(state.history, entry),
    reprompt() {
      if (state.closed || state.waiting === undefined) return;
      state.active = true;
      state.cursorRow = 0;
      render(state);
    },
    clearPartial() {
      state.buffer.clear();
      render(state);
    },
    onInterrupt(listener) {
      state.interruptListeners.push(listener);
    },
    close,
  };
}
