import type { CliIo, CliOutput } from '../io.js';

/** Text decorations for one output stream; every method is the identity when colour is off. */
export interface Style {
  readonly enabled: boolean;
  dim(text: string): string;
  bold(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  green(text: string): string;
  cyan(text: string): string;
}

/**
 * Colour is used only on a terminal and never when `NO_COLOR` is set to a non-empty value
 * (https://no-color.org). `FORCE_COLOR` does not override a non-terminal stream.
 */
export function colorEnabled(stream: CliOutput, env: CliIo['env']): boolean {
  if (stream.isTTY !== true) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return env.TERM !== 'dumb';
}

export function createStyle(enabled: boolean): Style {
  const wrap = (open: number, close: number) => (text: string) =>
    enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return {
    enabled,
    dim: wrap(2, 22),
    bold: wrap(1, 22),
    red: wrap(31, 39),
    yellow: wrap(33, 39),
    green: wrap(32, 39),
    cyan: wrap(36, 39),
  };
}

/** The style for `stream` under `env`. */
export function styleFor(stream: CliOutput, env: CliIo['env']): Style {
  return createStyle(colorEnabled(stream, env));
}
