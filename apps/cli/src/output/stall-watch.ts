import type { CliOutput } from '../io.js';
import type { Style } from './style.js';
import { textWidth } from './text-width.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/** Quiet for this long after the last piece of text, a stream counts as stalled. */
export const STALL_AFTER_MS = 1500;
const REDRAW_MS = 250;

/** Watches a streaming answer and shows a sign of life when it stalls. */
export interface StallWatch {
  /** Text arrived (`written` is what was shown of it, maybe nothing yet): remembers where the line ends and starts waiting for the next piece. */
  text(delta: string): void;
  /** Erases the sign of life, if shown; call before anything else is written. */
  erase(): void;
  /** The stream moved on (tool call, step end, turn end): erases and stops waiting. */
  stop(): void;
}

/**
 * On a terminal, when no text has arrived for `afterMs` in the middle of an answer, draws a dim
 * `⠋ waiting for the model · 3s` right after the text and keeps it ticking, moving the cursor
 * back with backspaces so the answer resumes where it stopped; the next write erases it. Disabled
 * (does nothing) when the stream is not a terminal, so piped output never gets it.
 */
export function createStallWatch(
  stream: CliOutput,
  options: { readonly enabled: boolean; readonly style: Style; readonly afterMs?: number },
): StallWatch {
  const afterMs = options.afterMs ?? STALL_AFTER_MS;
  let column = 0;
  let lastTextAt = 0;
  let armed: ReturnType<typeof setTimeout> | undefined;
  let ticking: ReturnType<typeof setInterval> | undefined;
  let drawnWidth = 0;
  let frame = 0;

  const clearTimers = () => {
    if (armed !== undefined) clearTimeout(armed);
    if (ticking !== undefined) clearInterval(ticking);
    armed = undefined;
    ticking = undefined;
  };

  const erase = () => {
    if (drawnWidth === 0) return;
    stream.write(`${' '.repeat(drawnWidth)}${'\b'.repeat(drawnWidth)}`);
    drawnWidth = 0;
  };

  const draw = () => {
    const seconds = Math.floor((Date.now() - lastTextAt) / 1000);
    const sign = ` ${FRAMES[frame % FRAMES.length] ?? ''} waiting for the model · ${seconds}s`;
    frame += 1;
    const width = textWidth(sign);
    // Never past the right edge: backspaces cannot climb back up a wrapped line.
    if (column + width >= (stream.columns ?? 80)) return;
    const padding = Math.max(0, drawnWidth - width);
    stream.write(`${options.style.dim(sign)}${' '.repeat(padding)}${'\b'.repeat(width + padding)}`);
    drawnWidth = width;
  };

  return {
    text(written) {
      if (!options.enabled) return;
      clearTimers();
      const lineBreak = written.lastIndexOf('\n');
      column = lineBreak === -1 ? column + textWidth(written) : textWidth(written.slice(lineBreak + 1));
      column %= Math.max(1, stream.columns ?? 80);
      lastTextAt = Date.now();
      armed = setTimeout(() => {
        armed = undefined;
        draw();
        ticking = setInterval(draw, REDRAW_MS);
        ticking.unref();
      }, afterMs);
      armed.unref();
    },
    erase,
    stop() {
      clearTimers();
      erase();
    },
  };
}
