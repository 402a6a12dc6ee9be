import { isUtf8 } from 'node:buffer';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '@forge/bounded-read';
import { sha256Hex, type JsonValue, type Tool, type ToolExecutionResult } from '@forge/core';
import { z } from 'zod';
import { changedLineCounts } from '../line-diff.js';
import type { ReadLedger } from '../read-ledger.js';
import { formatBytes, isBinary, loadFile, unloadedFileText } from '../text-file.js';
import { resolveWorkspacePath, type WorkspacePath } from '../workspace.js';
import { plantsGitRepository } from './git-repository-shape.js';
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
      if (input[name] === undefined)
        context.addIssue({ code: 'custom', path: [name], message: `mode "${input.mode}" needs "${name}"` });
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
 * `check` makes the same decision before approval, so an edit that cannot apply as asked (text
 * missing or ambiguous, file unread or changed) is refused to the model and never put to the user.
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
    async check(input) {
      try {
        const plan = await planEdit(options, input);
        return plan.kind === 'refused' ? refusalText(plan.result) : undefined;
      } catch {
        // A host failure is reported by execute, which meets it again.
        return undefined;
      }
    },
    async execute(input) {
      const plan = await planEdit(options, input);
      if (plan.kind === 'refused') return plan.result;
      if (plan.kind === 'create') return create(options, plan);
      try {
        await writeFileAtomic(plan.target.absolute, plan.updated, { mode: plan.fileMode });
      } catch (error) {
        // A full or read-only file system is told with the file's name; the file is left as it was.
        return fileProblem(error, plan.target.relative);
      }
      const sha256After = sha256Hex(plan.updated);
      options.ledger.record(plan.target.relative, sha256After);
      return {
        ...text(plan.message, {
          path: plan.target.relative,
          sha256Before: plan.sha256Before,
          sha256After,
          ...plan.region,
        }),
        summary: `edited ${plan.target.relative} ${lineCounts(plan.before, plan.updated)}`,
      };
    },
  };
}

/** What an edit would do, worked out without writing: refused with the reason, or the content to write. */
type EditPlan =
  | { readonly kind: 'refused'; readonly result: ToolExecutionResult }
  | { readonly kind: 'create'; readonly target: WorkspacePath; readonly path: string; readonly content: string }
  | {
      readonly kind: 'change';
      readonly target: WorkspacePath;
      readonly before: string;
      readonly updated: string;
      readonly sha256Before: string;
      readonly fileMode: number;
      readonly message: string;
      /** Lines of the updated file the replacement wrote (1-based, inclusive); absent for a rewrite. */
      readonly region?: { readonly startLine: number; readonly endLine: number };
    };

function refused(message: string): EditPlan {
  return { kind: 'refused', result: errorText(message) };
}

function refusalText(result: ToolExecutionResult): string {
  return result.output.type === 'error-text' ? result.output.value : 'edit_file refused the call';
}

function lineCounts(before: string | undefined, after: string): string {
  const { added, removed } = changedLineCounts(before, after);
  return `(+${added} −${removed})`;
}

async function planEdit(options: EditFileToolOptions, input: JsonValue): Promise<EditPlan> {
  const parsed = parseToolInput('edit_file', inputSchema, input);
  if (!parsed.ok) return { kind: 'refused', result: parsed.result };
  const request = parsed.value;
  try {
    const target = await resolveWorkspacePath(options.root, request.path);
    if (target.relative.split('/').includes('.git')) {
      return refused(
        `edit_file does not change files inside .git ("${request.path}"); use git commands through run_command instead.`,
      );
    }
    const planted = await plantsGitRepository(target.absolute);
    if (planted !== undefined) {
      return refused(
        `edit_file does not write "${request.path}": ${planted}, and a repository's config can make git run commands. Treated like .git; use git commands through run_command instead.`,
      );
    }
    if (request.mode === 'create') {
      if (target.exists) return refused(alreadyExists(request.path));
      return { kind: 'create', target, path: request.path, content: request.content ?? '' };
    }
    return await planChange(options, target, request);
  } catch (error) {
    return { kind: 'refused', result: fileProblem(error, request.path) };
  }
}

function alreadyExists(requestedPath: string): string {
  return `"${requestedPath}" already exists; read it with read_file, then change it with mode "replace" or "rewrite".`;
}

async function create(
  options: EditFileToolOptions,
  plan: Extract<EditPlan, { kind: 'create' }>,
): Promise<ToolExecutionResult> {
  const { target, content } = plan;
  await mkdir(path.dirname(target.absolute), { recursive: true });
  try {
    await writeFileAtomic(target.absolute, content, { exclusive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return errorText(alreadyExists(plan.path));
    return fileProblem(error, plan.path);
  }
  const sha256After = sha256Hex(content);
  options.ledger.record(target.relative, sha256After);
  return {
    ...text(`Created "${target.relative}" (${formatBytes(Buffer.byteLength(content))}).`, {
      path: target.relative,
      sha256Before: null,
      sha256After,
    }),
    summary: `created ${target.relative} ${lineCounts(undefined, content)}`,
  };
}

async function planChange(options: EditFileToolOptions, target: WorkspacePath, request: EditInput): Promise<EditPlan> {
  if (!target.exists) return refused(`"${request.path}" does not exist; use mode "create" to make a new file.`);
  const loaded = await loadFile(target.absolute, options.root, request.path);
  if (loaded.kind !== 'ok') return refused(unloadedFileText(loaded, request.path, 'edit_file'));
  if (isBinary(loaded.bytes))
    return refused(`"${request.path}" is a binary file (it contains NUL bytes); edit_file changes text files only.`);

  const sha256Before = sha256Hex(loaded.bytes);
  const seen = options.ledger.hashOf(target.relative);
  // A file the checkpoint's working set showed as it is now counts as seen; a region shown, only for edits inside it.
  const sight = seen === sha256Before ? undefined : options.ledger.seenInWorkingSet(target.relative);
  const shownRegion = sight?.sha256 === sha256Before ? sight.region : undefined;
  if (seen !== sha256Before && shownRegion === undefined) {
    if (seen === undefined && sight === undefined) {
      return refused(
        `edit_file refused: "${request.path}" has not been read in full in this session. Call read_file on it without a line range, then retry the edit.`,
      );
    }
    return refused(
      `edit_file refused: "${request.path}" changed since you last read it. Call read_file again to see its current content, then retry the edit against that.`,
    );
  }
  const partOnly = shownRegion === undefined || shownRegion === null ? undefined : shownRegion;

  const before = loaded.bytes.toString('utf8');
  const change = { kind: 'change', target, before, sha256Before, fileMode: loaded.mode & 0o7777 } as const;
  if (request.mode !== 'replace') {
    if (partOnly !== undefined) {
      return refused(
        `edit_file refused: the working set showed only lines ${partOnly.startLine}-${partOnly.endLine} of "${request.path}", so it cannot be rewritten whole. Call read_file on it without a line range first.`,
      );
    }
    const updated = request.content ?? '';
    return {
      ...change,
      updated,
      message: `Rewrote "${target.relative}" (${formatBytes(Buffer.byteLength(updated))}).`,
    };
  }
  if (!isUtf8(loaded.bytes)) {
    return refused(
      `"${request.path}" is not valid UTF-8, so exact text replacement could corrupt it; use mode "rewrite" if you must change it.`,
    );
  }
  const old = request.old ?? '';
  const count = countOccurrences(before, old);
  if (count === 0) {
    return refused(
      `The text to replace was not found in "${request.path}"; nothing changed. Copy "old" exactly from the latest read_file output, whitespace included.`,
    );
  }
  if (count > 1 && request.all !== true) {
    return refused(
      `The text to replace occurs ${count} times in "${request.path}"; nothing changed. Add surrounding lines to "old" so it occurs once, or set all: true to change every occurrence.`,
    );
  }
  if (partOnly !== undefined && !occurrencesWithin(before, old, request.all === true ? count : 1, partOnly)) {
    return refused(
      `edit_file refused: the text to replace in "${request.path}" is not all inside lines ${partOnly.startLine}-${partOnly.endLine}, the part the working set showed. ` +
        'Call read_file on the lines you change (or the whole file), then retry the edit.',
    );
  }
  const replacement = request.new ?? '';
  const updated = request.all === true ? before.split(old).join(replacement) : replaceFirst(before, old, replacement);
  const region = replacedRegion(before, updated, old, replacement, request.all === true ? count : 1);
  return {
    ...change,
    updated,
    region,
    message: `Replaced ${count} occurrence${count === 1 ? '' : 's'} in "${target.relative}".`,
  };
}

/**
 * The lines of the updated file from the first replacement's first line to the last one's last
 * line: the region the edit changed, which a checkpoint keeps in hand.
 */
function replacedRegion(
  before: string,
  updated: string,
  old: string,
  replacement: string,
  replaced: number,
): { startLine: number; endLine: number } {
  const first = before.indexOf(old);
  let last = first;
  for (let seen = 1; seen < replaced; seen += 1) last = before.indexOf(old, last + old.length);
  // Every earlier replacement moved the last one by the difference in length.
  const end = last + (replaced - 1) * (replacement.length - old.length) + replacement.length;
  const lineAt = (index: number): number => countOccurrences(updated.slice(0, index), '\n') + 1;
  const startLine = lineAt(first);
  return { startLine, endLine: Math.max(startLine, lineAt(Math.max(first, end - 1))) };
}

/** True when each of the first `replaced` occurrences of `old` in `text` starts and ends inside `region`'s lines. */
function occurrencesWithin(
  text: string,
  old: string,
  replaced: number,
  region: { readonly startLine: number; readonly endLine: number },
): boolean {
  let line = 1;
  let scanned = 0;
  const lineAt = (index: number): number => {
    line += countOccurrences(text.slice(scanned, index), '\n');
    scanned = index;
    return line;
  };
  for (
    let index = text.indexOf(old), seen = 0;
    index !== -1 && seen < replaced;
    index = text.indexOf(old, index + old.length), seen += 1
  ) {
    if (lineAt(index) < region.startLine || lineAt(index + old.length - 1) > region.endLine) return false;
  }
  return true;
}

function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let index = haystack.indexOf(needle); index !== -1; index = haystack.indexOf(needle, index + needle.length))
    count += 1;
  return count;
}

function replaceFirst(haystack: string, needle: string, replacement: string): string {
  const index = haystack.indexOf(needle);
  return haystack.slice(0, index) + replacement + haystack.slice(index + needle.length);
}
