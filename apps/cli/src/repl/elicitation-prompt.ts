// The subpath carries no MCP SDK code, so the REPL does not load the SDK unless servers are configured.
import {
  parseFieldAnswer,
  type ElicitationAnswer,
  type ElicitationField,
  type ElicitationRequest,
} from '@forge/mcp/elicitation';
import { terminalText } from '@forge/core/terminal';
import type { Style } from '../output/style.js';
import type { LineReader } from './line-reader.js';

function describeDefault(value: ElicitationField['default']): string {
  if (value === undefined) return '';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return Array.isArray(value) ? value.join(', ') : String(value);
}

/** The prompt of one field: its title, what it takes, and its default. */
export function fieldPrompt(field: ElicitationField): string {
  const kind =
    field.choices !== undefined
      ? `[${field.choices.join('/')}]`
      : field.type === 'boolean'
        ? '[yes/no]'
        : field.type === 'string'
          ? field.format === undefined
            ? ''
            : `(${field.format})`
          : `(${field.type})`;
  const fallback =
    field.default === undefined
      ? field.required
        ? ''
        : ' (optional)'
      : ` (default ${describeDefault(field.default)})`;
  const label = terminalText(field.title ?? field.name);
  return `  ${[label, kind].filter(Boolean).join(' ')}${fallback}: `;
}

/**
 * Asks the user what an MCP server requests, field by field, in the REPL. The question comes
 * first, headed with the server's name; Enter keeps a field's default (or leaves an optional one
 * out), `/decline` refuses and `/cancel`, Ctrl-C or the end of input cancels. The defaults of
 * fields left out are added by the caller (SEP-1034), so the server gets them either way.
 */
export async function askElicitation(options: {
  readonly request: ElicitationRequest;
  readonly reader: LineReader;
  readonly style: Style;
  readonly print: (text: string) => void;
  readonly signal?: AbortSignal;
}): Promise<ElicitationAnswer> {
  const { request, reader, style, print } = options;
  print(`${style.yellow(`MCP server "${request.server}" asks:`)} ${terminalText(request.message)}\n`);
  print(`${style.dim('Enter keeps the default; /decline refuses, /cancel cancels.')}\n`);
  const content: Record<string, string | number | boolean | string[]> = {};
  for (const field of request.fields) {
    if (field.description !== undefined) print(`${style.dim(`  ${terminalText(field.description)}`)}\n`);
    for (;;) {
      let line: string | undefined;
      try {
        line = await reader.next(fieldPrompt(field), {
          remember: false,
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        });
      } catch {
        return { action: 'cancel' };
      }
      if (line === undefined || line.trim() === '/cancel') return { action: 'cancel' };
      if (line.trim() === '/decline') return { action: 'decline' };
      const parsed = parseFieldAnswer(field, line);
      if ('error' in parsed) {
        print(`${style.red(`  ${parsed.error}`)}\n`);
        continue;
      }
      if (parsed.value !== undefined) content[field.name] = parsed.value;
      break;
    }
  }
  return { action: 'accept', content };
}
