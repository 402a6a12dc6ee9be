import type { CliOutput } from '../io.js';
import type { Style } from './style.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const FRAME_INTERVAL_MS = 80;

/** A one-line activity indicator. Does nothing unless `enabled` (a terminal). */
export interface Spinner {
  start(label: string): void;
  /** Erases the indicator; safe to call when it is not running. */
  stop(): void;
}

/**
 * A spinner drawn with carriage returns only (no cursor or erase escape codes), so it never
 * leaves control sequences in output; it is disabled when the stream is not a terminal.
 */
export function createSpinner(
  stream: CliOutput,
  options: { readonly enabled: boolean; readonly style: Style },
): Spinner {
  let timer: ReturnType<typeof setInterval> | undefined;
  let drawnWidth = 0;
  let frame = 0;

  const draw = (label: string) => {
    const glyph = FRAMES[frame % FRAMES.length] ?? '';
    frame += 1;
    const line = `${glyph} ${label}`;
    stream.write(`\r${options.style.dim(line)}`);
    drawnWidth = Math.max(drawnWidth, line.length);
  };

  return {
    start(label) {
      if (!options.enabled || timer !== undefined) return;
      draw(label);
      timer = setInterval(() => draw(label), FRAME_INTERVAL_MS);
      timer.unref();
    },
    stop() {
      if (timer === undefined) return;
      clearInterval(timer);
      timer = undefined;
      stream.write(`\r${' '.repeat(drawnWidth)}\r`);
      drawnWidth = 0;
    },
  };
}
