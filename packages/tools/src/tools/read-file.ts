import { sha256Hex, type JsonObject, type Tool } from '@forge/core';
import { z } from 'zod';
import type { ReadLedger } from '../read-ledger.js';
import { formatBytes, isBinary, loadFile, unloadedFileText } from '../text-file.js';
import { resolveWorkspacePath } from '../workspace.js';
import { errorText, field, fileProblem, inputJsonSchema, parseToolInput, quote, text } from './tool-support.js';

/** Default for `readCapBytes`: the most file content one read_file call returns. */
export const DEFAULT_READ_CAP_BYTES = 128 * 1024;

const inputSchema = z
  .strictObject({
    path: z.string().min(1).describe('File path relative to the workspace root.'),
    startLine: z.int().min(1).optional().describe('First line to return (1-based). Omit to start at the top.'),
    endLine: z.int().min(1).optional().describe('Last line to return (inclusive). Omit to read to the end.'),
  })
  .refine((input) => input.startLine === undefined || input.endLine === undefined || input.endLine >= input.startLine, {
    message: 'endLine must not be smaller than startLine',
    path: ['endLine'],
  });

export interface ReadFileToolOptions {
  readonly root: string;
  readonly ledger: ReadLedger;
  readonly readCapBytes?: number | undefined;
}

/**
 * `read_file`: returns a text file's content, bounded by a byte cap and an optional line range.
 * The host hashes the whole file; a read that showed every line is recorded in the ledger, which
 * is what later lets `edit_file` change the file.
 */
export function createReadFileTool(options: ReadFileToolOptions): Tool {
  const readCap = options.readCapBytes ?? DEFAULT_READ_CAP_BYTES;
  return {
    name: 'read_file',
    description:
      'Read a text file in the workspace. Large files are cut at a byte cap; use startLine/endLine to read a part. ' +
      'Read a file completely (no range, not cut) before changing it with edit_file.',
    inputSchema: inputJsonSchema(inputSchema),
    risk: 'read',
    describe: (input) => {
      const start = field(input, 'startLine');
      const end = field(input, 'endLine');
      const range =
        start === undefined && end === undefined ? '' : ` (lines ${quote(start ?? 1)}-${quote(end ?? 'end')})`;
      return `read_file ${quote(field(input, 'path'))}${range}`;
    },
    async execute(input) {
      const parsed = parseToolInput('read_file', inputSchema, input);
      if (!parsed.ok) return parsed.result;
      const request = parsed.value;
      try {
        const target = await resolveWorkspacePath(options.root, request.path);
        const loaded = await loadFile(target.absolute, options.root, request.path);
        if (loaded.kind !== 'ok') return errorText(unloadedFileText(loaded, request.path, 'read_file'));
        if (isBinary(loaded.bytes)) {
          return errorText(
            `"${request.path}" is a binary file (it contains NUL bytes); read_file shows text files only.`,
          );
        }
        const sha256 = sha256Hex(loaded.bytes);
        const view = selectLines(loaded.bytes.toString('utf8'), request.startLine, request.endLine, readCap);
        if (view.kind === 'past-end') {
          return errorText(
            `"${request.path}" has ${view.totalLines} lines; startLine ${request.startLine} is past its end.`,
          );
        }
        if (view.complete) options.ledger.record(target.relative, sha256);
        // A partial read names the lines it showed, so a checkpoint can keep that region in hand.
        const metadata: JsonObject = {
          path: target.relative,
          sha256,
          bytes: loaded.bytes.length,
          complete: view.complete,
        };
        if (!view.complete && view.lastLine >= view.firstLine)
          Object.assign(metadata, { startLine: view.firstLine, endLine: view.lastLine });
        const lines = view.complete
          ? `${view.totalLines} line${view.totalLines === 1 ? '' : 's'}`
          : `lines ${view.firstLine}–${view.lastLine} of ${view.totalLines}${view.cut ? ', cut at the size cap' : ''}`;
        return {
          ...text(render(request.path, view, loaded.bytes.length), metadata),
          summary: `read ${target.relative} (${lines})`,
        };
      } catch (error) {
        return fileProblem(error, request.path);
      }
    },
  };
}

type LineView =
  | { readonly kind: 'past-end'; readonly totalLines: number }
  | {
      readonly kind: 'lines';
      readonly content: string;
      readonly firstLine: number;
      readonly lastLine: number;
      readonly totalLines: number;
      readonly cut: boolean;
      readonly complete: boolean;
    };

/** Picks the requested lines, then keeps whole lines up to `capBytes` (cutting the first line only if it alone is too long). */
export function selectLines(
  content: string,
  startLine: number | undefined,
  endLine: number | undefined,
  capBytes: number,
): LineView {
  const lines = splitLines(content);
  const totalLines = lines.length;
  const first = startLine ?? 1;
  if (totalLines > 0 && first > totalLines) return { kind: 'past-end', totalLines };
  const last = Math.min(endLine ?? totalLines, totalLines);
  let kept = '';
  let keptBytes = 0;
  let lastKept = first - 1;
  let cut = false;
  for (let lineNumber = first; lineNumber <= last; lineNumber += 1) {
    const line = lines[lineNumber - 1] as string;
    const lineBytes = Buffer.byteLength(line);
    if (keptBytes + lineBytes > capBytes) {
      cut = true;
      if (lineNumber === first) {
        kept = truncateToBytes(line, capBytes);
        lastKept = lineNumber;
      }
      break;
    }
    kept += line;
    keptBytes += lineBytes;
    lastKept = lineNumber;
  }
  const complete = !cut && first === 1 && last === totalLines;
  return { kind: 'lines', content: kept, firstLine: first, lastLine: lastKept, totalLines, cut, complete };
}

function render(requestedPath: string, view: Extract<LineView, { kind: 'lines' }>, fileBytes: number): string {
  if (view.totalLines === 0) return `[read_file: "${requestedPath}" is empty]`;
  if (view.complete) return view.content;
  const shown = view.lastLine < view.firstLine ? 'no lines' : `lines ${view.firstLine}-${view.lastLine}`;
  const reason = view.cut ? 'cut at the byte cap' : 'a line range';
  const next = view.lastLine < view.totalLines ? ` Continue with startLine=${view.lastLine + 1}.` : '';
  const separator = view.content.endsWith('\n') || view.content.length === 0 ? '' : '\n';
  return (
    `${view.content}${separator}[read_file: partial read (${reason}): ${shown} of ${view.totalLines}, file is ${formatBytes(fileBytes)}.` +
    `${next} A partial read does not allow edit_file; read the whole file first.]`
  );
}

/** Lines with their line endings kept; no empty last line after a final newline. */
function splitLines(content: string): string[] {
  if (content.length === 0) return [];
  const lines = content.split(/(?<=\n)/);
  return lines;
}

function truncateToBytes(value: string, maxBytes: number): string {
  const bytes = Buffer.from(value, 'utf8').subarray(0, maxBytes);
  // Drop a multi-byte character cut in half rather than emitting a replacement character.
  return bytes.toString('utf8').replace(/\uFFFD$/, '');
}
