import { isUtf8 } from 'node:buffer';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { sha256Hex, type Tool, type ToolExecutionResult } from '@forge/core';
import { z } from 'zod';
import { writeFileAtomic } from '../atomic-write.js';
import type { ReadLedger } from '../read-ledger.js';
import { formatBytes, isBinary, loadFile, unloadedFileText } from '../text-file.js';
import { resolveWorkspacePath, type WorkspacePath } from '../workspace.js';
import { errorText, field, fileProblem, inputJsonSchema, parseToolInput, quote, text } from './tool-support.js';

// One flat object rather than a union per mode: several providers require a plain object schema at the top level.
const inputSchema = z
  .strictObject({
    path: z.string().min(1).describe('File path relative to the workspace root.'),
    mode: z
      .enum(['create', 'replace', 'rewrite'])
      .describe('create: new file (fails if it exists); replace: swap exact text; rewrite: replace the whole content.'),
    content: z.string().optional().describe('The full file content (create and rewrite).'),
    old: z.string().min(1).optional().describe('replace: the exact text to find, copied from read_file output.'),
    new: z.string().optional().describe('replace: the text to put in its place.'),
    all: z.boolean().optional().describe('replace: change every occurrence instead of requiring exactly one.'),
  })
  .superRefine((input, context) => {
    const needs = (name: 'content' | 'old' | 'new'): void => {
      if (input[name] === undefined) context.addIssue({ code: 'custom', path: [name], message: `mode "${input.mode}" needs "${name}"` });
    };
    if (input.mode === 'replace') {
      needs('old');
      needs('new');
    } else {
      needs('content');
    }
  });

type EditInput = z.infer<typeof inputSchema>;

export interface EditFileToolOptions {
  readonly root: string;
  readonly ledger: ReadLedger;
}

/**
 * `edit_file`: creates a file, replaces an exact piece of text, or rewrites a file. Changing an
 * existing file is refused unless its current SHA-256 equals the one the ledger recorded at the
 * session's last full read (or edit) of it, so the model always edits what it has actually seen.
 * Writes are atomic and keep the file's permission bits.
 */
export function createEditFileTool(options: EditFileToolOptions): Tool {
  return {
    name: 'edit_file',
    description:
      'Change a file in the workspace. mode "create" makes a new file; "replace" swaps an exact, unique piece of text ' +
      '(old → new; all: true for every occurrence); "rewrite" replaces the whole content. ' +
      'replace and rewrite need a complete read_file of the file first, and fail if the file changed since.',
    inputSchema: inputJsonSchema(inputSchema),
    risk: 'write',
    describe: (input) => `edit_file ${quote(field(input, 'mode'))} ${quote(field(input, 'path'))}`,
    async execute(input) {
      const parsed = parseToolInput('edit_file', inputSchema, input);
      if (!parsed.ok) return parsed.result;
      const request = parsed.value;
      try {
        const target = await resolveWorkspacePath(options.root, request.path);
        if (target.relative.split('/').includes('.git')) {
          return errorText(`edit_file does not change files inside .git ("${request.path}"); use git commands through run_command instead.`);
        }
        return request.mode === 'create' ? await create(options, target, request) : await change(options, target, request);
      } catch (error) {
        return fileProblem(error, request.path);
      }
    },
  };
}

async function create(options: EditFileToolOptions, target: WorkspacePath, request: EditInput): Promise<ToolExecutionResult> {
  const content = request.content ?? '';
  const exists = `"${request.path}" already exists; read it with read_file, then change it with mode "replace" or "rewrite".`;
  if (target.exists) return errorText(exists);
  await mkdir(path.dirname(target.absolute), { recursive: true });
  try {
    await writeFileAtomic(target.absolute, content, { exclusive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return errorText(exists);
    throw error;
  }
  const sha256After = sha256Hex(content);
  options.ledger.record(target.relative, sha256After);
  return text(`Created "${target.relative}" (${formatBytes(Buffer.byteLength(content))}).`, {
    path: target.relative,
    sha256Before: null,
    sha256After,
  });
}

async function change(options: EditFileToolOptions, target: WorkspacePath, request: EditInput): Promise<ToolExecutionResult> {
  if (!target.exists) return errorText(`"${request.path}" does not exist; use mode "create" to make a new file.`);
  const loaded = await loadFile(target.absolute, options.root, request.path);
  if (loaded.kind !== 'ok') return errorText(unloadedFileText(loaded, request.path, 'edit_file'));
  if (isBinary(loaded.bytes)) return errorText(`"${request.path}" is a binary file (it contains NUL bytes); edit_file changes text files only.`);

  const sha256Before = sha256Hex(loaded.bytes);
  const seen = options.ledger.hashOf(target.relative);
  if (seen === undefined) {
    return errorText(
      `edit_file refused: "${request.path}" has not been read in full in this session. Call read_file on it without a line range, then retry the edit.`,
    );
  }
  if (seen !== sha256Before) {
    return errorText(
      `edit_file refused: "${request.path}" changed since you last read it. Call read_file again to see its current content, then retry the edit against that.`,
    );
  }

  let updated: string;
  let summary: string;
  if (request.mode === 'replace') {
    if (!isUtf8(loaded.bytes)) {
      return errorText(`"${request.path}" is not valid UTF-8, so exact text replacement could corrupt it; use mode "rewrite" if you must change it.`);
    }
    const current = loaded.bytes.toString('utf8');
    const old = request.old ?? '';
    const count = countOccurrences(current, old);
    if (count === 0) {
      return errorText(
        `The text to replace was not found in "${request.path}"; nothing changed. Copy "old" exactly from the latest read_file output, whitespace included.`,
      );
    }
    if (count > 1 && request.all !== true) {
      return errorText(
        `The text to replace occurs ${count} times in "${request.path}"; nothing changed. Add surrounding lines to "old" so it occurs once, or set all: true to change every occurrence.`,
      );
    }
    updated = request.all === true ? current.split(old).join(request.new ?? '') : replaceFirst(current, old, request.new ?? '');
    summary = `Replaced ${count} occurrence${count === 1 ? '' : 's'} in "${target.relative}".`;
  } else {
    updated = request.content ?? '';
    summary = `Rewrote "${target.relative}" (${formatBytes(Buffer.byteLength(updated))}).`;
  }

  await writeFileAtomic(target.absolute, updated, { mode: loaded.mode & 0o7777 });
  const sha256After = sha256Hex(updated);
  options.ledger.record(target.relative, sha256After);
  return text(summary, { path: target.relative, sha256Before, sha256After });
}

function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let index = haystack.indexOf(needle); index !== -1; index = haystack.indexOf(needle, index + needle.length)) count += 1;
  return count;
}

function replaceFirst(haystack: string, needle: string, replacement: string): string {
  const index = haystack.indexOf(needle);
  return haystack.slice(0, index) + replacement + haystack.slice(index + needle.length);
}
