import { lineAndColumn } from '@forge/config';

/** Where a value sits in JSON text: the start of its key (object members) or of the value (array items). */
export interface JsonLocation {
  readonly line: number;
  readonly column: number;
}

/**
 * Maps the dotted path of every value in valid JSON text (`context.bufferTokens`,
 * `mcpServers.0.name`; the root is `''`) to its UTF-16 offset. Text that is not valid JSON gives
 * whatever was mapped before the problem; callers only ask about text `JSON.parse` accepted.
 */
export function jsonValueOffsets(text: string): Map<string, number> {
  const offsets = new Map<string, number>();
  let index = 0;

  const skipSpace = () => {
    while (index < text.length && /\s/.test(text[index] ?? '')) index += 1;
  };
  const readString = (): string => {
    const start = index;
    index += 1;
    while (index < text.length && text[index] !== '"') index += text[index] === '\\' ? 2 : 1;
    index += 1;
    try {
      return JSON.parse(text.slice(start, index)) as string;
    } catch {
      return '';
    }
  };
  const join = (base: string, key: string) => (base === '' ? key : `${base}.${key}`);

  const readValue = (path: string, at: number): void => {
    skipSpace();
    if (!offsets.has(path)) offsets.set(path, at < 0 ? index : at);
    const character = text[index];
    if (character === '{') {
      index += 1;
      for (;;) {
        skipSpace();
        if (text[index] === '}' || index >= text.length) break;
        const keyStart = index;
        const key = readString();
        skipSpace();
        index += 1; // the colon
        readValue(join(path, key), keyStart);
        skipSpace();
        if (text[index] !== ',') break;
        index += 1;
      }
      index += 1;
    } else if (character === '[') {
      index += 1;
      for (let item = 0; ; item += 1) {
        skipSpace();
        if (text[index] === ']' || index >= text.length) break;
        readValue(join(path, String(item)), -1);
        skipSpace();
        if (text[index] !== ',') break;
        index += 1;
      }
      index += 1;
    } else if (character === '"') {
      readString();
    } else {
      while (index < text.length && !/[\s,\]}]/.test(text[index] ?? '')) index += 1;
    }
  };

  const body = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  index = body;
  readValue('', -1);
  return offsets;
}

/**
 * The line and column of the value at `path`, or of its nearest enclosing value that exists (a
 * missing key is reported where its object starts).
 */
export function locateJsonPath(
  text: string,
  path: string,
  offsets: Map<string, number> = jsonValueOffsets(text),
): JsonLocation | undefined {
  const segments = path === '' ? [] : path.split('.');
  for (let length = segments.length; length >= 0; length -= 1) {
    const offset = offsets.get(segments.slice(0, length).join('.'));
    if (offset !== undefined) return lineAndColumn(text, offset);
  }
  return undefined;
}
