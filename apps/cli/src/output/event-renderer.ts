import type { EventEnvelope } from '@forge/core';
import type { CliOutput } from '../io.js';
import type { Style } from './style.js';

/** Turns the events of runs into output. */
export interface EventRenderer {
  onEvent(envelope: EventEnvelope): void;
  /** Ends the output of one run (closes an open line of text). */
  finishRun(): void;
}

/** `--json`: every envelope as one JSON line, nothing else. */
export function createJsonRenderer(stdout: CliOutput): EventRenderer {
  return {
    onEvent: (envelope) => {
      stdout.write(`${JSON.stringify(envelope)}\n`);
    },
    finishRun: () => {},
  };
}

/** Called before anything is written, so a spinner can clear its line first. */
export type BeforeWrite = () => void;

/**
 * Human output: assistant text streams to `text` as it arrives; tool activity goes to
 * `activity` as short dim lines (`• read_file README.md`), each followed by one line saying how it
 * ended (`  read README.md (40 lines)`; red when it failed or was refused, yellow when denied or cancelled).
 */
export function createTextRenderer(options: {
  readonly text: CliOutput;
  readonly activity: CliOutput;
  readonly style: Style;
  readonly beforeWrite?: BeforeWrite;
}): EventRenderer {
  const { text, activity, style } = options;
  let lineOpen = false;

  const closeLine = () => {
    if (lineOpen) text.write('\n');
    lineOpen = false;
  };

  return {
    onEvent({ event }) {
      switch (event.type) {
        case 'model.text.delta':
          if (event.delta.length === 0) return;
          options.beforeWrite?.();
          text.write(event.delta);
          lineOpen = !event.delta.endsWith('\n');
          return;
        case 'tool.call.started':
          options.beforeWrite?.();
          closeLine();
          activity.write(`${style.dim(`• ${event.summary}`)}\n`);
          return;
        case 'tool.call.completed': {
          options.beforeWrite?.();
          const paint = event.outcome === 'ok' ? style.dim : event.outcome === 'error' ? style.red : style.yellow;
          activity.write(`${paint(`  ${event.resultSummary ?? `${event.toolName}: ${outcomeLabel[event.outcome]}`}`)}\n`);
          return;
        }
        default:
          return;
      }
    },
    finishRun() {
      options.beforeWrite?.();
      closeLine();
    },
  };
}

/** For events without a `resultSummary` (older engines). */
const outcomeLabel = {
  ok: 'done',
  error: 'failed (the model sees the error)',
  denied: 'denied',
  cancelled: 'cancelled',
} as const;
