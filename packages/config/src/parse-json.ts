import { ConfigError } from './config-error.js';

/** 1-based line and column of a UTF-16 offset in `text`. */
export function lineAndColumn(text: string, offset: number): { readonly line: number; readonly column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(Math.max(offset, 0), text.length);
  for (let index = 0; index < end; index += 1) {
    if (text.charCodeAt(index) === 10) {
      line += 1;
      lineStart = index + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

/**
 * Parses JSON text from `source`. A syntax error becomes a `ConfigError` with the line and column
 * of the problem (taken from the parser's position, whichever way the runtime words it).
 */
export function parseJsonText(text: string, source: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.trim().length === 0)
    throw new ConfigError(source, [{ path: '', message: 'the file is empty; write at least {"schemaVersion": 1}' }]);
  try {
    return JSON.parse(body) as unknown;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const lineColumn = /line (\d+) column (\d+)/.exec(message);
    const position = /position (\d+)/.exec(message);
    let location: { line: number; column: number };
    if (lineColumn !== null) location = { line: Number(lineColumn[1]), column: Number(lineColumn[2]) };
    else if (position !== null) location = lineAndColumn(body, Number(position[1]));
    else location = lineAndColumn(body, body.length);
    const reason = message
      .replace(/\s*\(line \d+ column \d+\)/, '')
      .replace(/ in JSON at position \d+/, '')
      .replace(/^JSON\.parse: /, '');
    throw new ConfigError(source, [{ path: '', message: `not valid JSON (${reason})`, ...location }]);
  }
}
