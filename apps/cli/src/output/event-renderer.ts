import type { EventEnvelope } from '@forge/core';
import { terminalLine, terminalText } from '@forge/core/terminal';
import type { CliOutput } from '../io.js';
import { disclosureLine } from '../session/compaction-output.js';
import { StreamWrapper } from './stream-wrap.js';
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
 * Human output, every piece of it through the terminal sanitizer (`@forge/core/terminal`): assistant text streams to `text` as it arrives
 * (on a terminal wrapped at spaces, each word held until it ends: {@link StreamWrapper}; elsewhere byte for byte); tool activity goes to
 * `activity` as short dim lines (`• read_file README.md`), each followed by one line saying how it
 * ended (`  read README.md (40 lines)`; red when it failed or was refused, yellow when denied or cancelled).
 * Context warnings (once per run), compactions and limit stops get one dim line too (see {@link contextLine}).
 */
export function createTextRenderer(options: {
  readonly text: CliOutput;
  readonly activity: CliOutput;
  readonly style: Style;
  readonly beforeWrite?: BeforeWrite;
  /** After each piece of streamed text, with what was written for it (a word still arriving is held back on a terminal). */
  readonly onText?: (shown: string) => void;
}): EventRenderer {
  const { text, activity, style } = options;
  let lineOpen = false;
  const wrapper = text.isTTY === true ? new StreamWrapper(() => text.columns ?? 80) : undefined;
  // One context warning per run: later steps past the same threshold would repeat it.
  let warned = false;
  // Who receives the conversation is said once per process, at its first compaction by a compactor model.
  let disclosed = false;

  const writeSome = (piece: string) => {
    if (piece !== '') text.write(piece);
  };

  const closeLine = () => {
    writeSome(wrapper?.flush() ?? '');
    if (lineOpen) text.write('\n');
    lineOpen = false;
    wrapper?.lineEnded();
  };

  return {
    onEvent({ event }) {
      // The text stream paused (a step ended, a tool runs): the word held so far is shown before anything else is.
      if (event.type !== 'model.text.delta' && wrapper !== undefined) writeSome(wrapper.flush());
      switch (event.type) {
        case 'model.text.delta':
          if (event.delta.length === 0) return;
          options.beforeWrite?.();
          {
            const shown = wrapper === undefined ? terminalText(event.delta) : wrapper.push(terminalText(event.delta));
            writeSome(shown);
            options.onText?.(shown);
          }
          lineOpen = !event.delta.endsWith('\n');
          return;
        case 'tool.call.started':
          options.beforeWrite?.();
          closeLine();
          activity.write(`${style.dim(`• ${terminalLine(event.summary)}`)}\n`);
          return;
        case 'tool.call.completed': {
          options.beforeWrite?.();
          const paint = event.outcome === 'ok' ? style.dim : event.outcome === 'error' ? style.red : style.yellow;
          activity.write(
            `${paint(`  ${terminalLine(event.resultSummary ?? `${event.toolName}: ${outcomeLabel[event.outcome]}`)}`)}\n`,
          );
          return;
        }
        case 'context.compaction.started':
          if (event.compactor === undefined || disclosed) return;
          disclosed = true;
          options.beforeWrite?.();
          closeLine();
          activity.write(`${style.dim(`• context: ${terminalLine(disclosureLine(event.compactor))}`)}\n`);
          return;
        default: {
          const line = contextLine(event);
          if (line === undefined || (event.type === 'context.warning' && warned)) return;
          if (event.type === 'context.warning') warned = true;
          options.beforeWrite?.();
          closeLine();
          activity.write(`${style.dim(`• ${terminalLine(line)}`)}\n`);
          return;
        }
      }
    },
    finishRun() {
      options.beforeWrite?.();
      closeLine();
      warned = false;
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

/**
 * The one line a person sees for a context event: a warning, a compaction that was made (strategy,
 * tokens before → after), or a stop because the request cannot fit. Undefined for the others.
 */
export function contextLine(event: EventEnvelope['event']): string | undefined {
  const tokens = (value: number) => value.toLocaleString('en-US');
  switch (event.type) {
    case 'context.warning':
      return `context: ${event.message}`;
    case 'context.compaction.completed':
      if (!event.installed) return undefined;
      return `context: compacted (${event.strategy}, ${event.trigger}) ~${tokens(event.tokensBefore)} → ~${tokens(event.tokensAfter)} tokens`;
    case 'context.limit_reached':
      return `context: stopped before sending (${event.reason}); see the error below`;
    case 'context.checkpoint.coverage':
      return `context: the ${event.strategy} checkpoint missed ${event.missingCount} item(s) of the record (${event.items
        .slice(0, 3)
        .map((item) => `${item.kind.replace('_', ' ')} #${item.seq}`)
        .join(', ')}); ${event.outcome === 'repaired' ? 'they were added before it was installed' : 'it was refused'}`;
    case 'context.compaction.failed':
      if (event.fallback !== 'forge-state') return undefined;
      return `context: the ${event.strategy} compaction failed (${event.reason}: ${event.message}); the deterministic forge-state checkpoint is used instead`;
    default:
      return undefined;
  }
}
