import { truncateText } from '@forge/core/checkpoint';
import type { JsonObject, JsonValue, ToolExecutionResult } from '@forge/core';
import { z } from 'zod';
import { displayPath } from '../display-path.js';
import { WorkspacePathError } from '../workspace.js';

/** The JSON Schema the model sees for a tool's input, derived from the zod schema that validates it. */
export function inputJsonSchema(schema: z.ZodType): JsonObject {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  // zod states the safe-integer range on every integer; it tells the model nothing, so leave it out.
  return JSON.parse(JSON.stringify(rest), (key, value: unknown) =>
    (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) || (key === 'minimum' && value === Number.MIN_SAFE_INTEGER)
      ? undefined
      : value,
  ) as JsonObject;
}

export type ParsedInput<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly result: ToolExecutionResult };

/** Validates tool input; a mismatch becomes error text the model can act on. */
export function parseToolInput<T>(toolName: string, schema: z.ZodType<T>, input: JsonValue): ParsedInput<T> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return { ok: true, value: parsed.data };
  const problems = parsed.error.issues.map((issue) => {
    const where = issue.path.length === 0 ? 'input' : issue.path.map(String).join('.');
    return `${where}: ${issue.message}`;
  });
  return {
    ok: false,
    result: errorText(`Invalid input for ${toolName}: ${problems.join('; ')}. Fix the arguments and call it again.`),
  };
}

export function errorText(message: string, metadata?: JsonObject): ToolExecutionResult {
  return { output: { type: 'error-text', value: message }, ...(metadata === undefined ? {} : { metadata }) };
}

export function text(value: string, metadata?: JsonObject): ToolExecutionResult {
  return { output: { type: 'text', value }, ...(metadata === undefined ? {} : { metadata }) };
}

/**
 * Turns the failures a model can fix (a refused path, a missing file, a directory where a file
 * was expected) into error text; anything else is a host failure and is rethrown.
 */
export function fileProblem(error: unknown, requestedPath: string): ToolExecutionResult {
  if (WorkspacePathError.isInstance(error)) return errorText(error.message);
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return errorText(
        `"${requestedPath}" does not exist in the workspace; use list_files or search to find the right path.`,
      );
    case 'ENOTDIR':
      return errorText(
        `"${requestedPath}" goes through something that is not a directory; check the path with list_files.`,
      );
    case 'EISDIR':
      return errorText(`"${requestedPath}" is a directory, not a file; use list_files to see what it contains.`);
    case 'EACCES':
    case 'EPERM':
      return errorText(`Permission denied for "${requestedPath}"; the file system does not let Forge access it.`);
    case 'ENOSPC':
    case 'EDQUOT':
    case 'EFBIG':
    case 'EROFS':
      return errorText(
        `Could not write "${requestedPath}": ${writeFailures[code].what} (${code}). The file was left as it was; ${writeFailures[code].advice}.`,
      );
    default:
      throw error;
  }
}

/** What a write failure means, and what the model should do about it. */
const writeFailures = {
  ENOSPC: { what: 'the file system is full', advice: 'tell the user, who must make room first' },
  EDQUOT: { what: 'the disk quota is used up', advice: 'tell the user, who must free space within their quota first' },
  EFBIG: {
    what: 'the file would be larger than the file system allows',
    advice: 'write less to it (or split it into several files), or tell the user',
  },
  EROFS: {
    what: 'the file system is read-only',
    advice: 'tell the user: nothing can be written there until the file system is writable again',
  },
} as const;

/**
 * A short, single-line rendering of a value for `describe`. A string with a newline or another
 * control character is shown as a JSON string (`"two\nlines.txt"`), so an approval prompt never
 * shows one path for another.
 */
export function quote(value: unknown, maxLength = 80): string {
  const rendered = typeof value === 'string' ? displayPath(value) : (JSON.stringify(value) ?? String(value));
  const oneLine = rendered.replace(/\s+/g, ' ');
  return truncateText(oneLine, maxLength);
}

/** Reads a field of an unvalidated input object, for `describe`. */
export function field(input: JsonValue, name: string): JsonValue | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return undefined;
  return (input as { readonly [key: string]: JsonValue })[name];
}
