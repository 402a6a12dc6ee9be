import { z } from 'zod';
import type { JsonObject } from '../json.js';
import { EDIT_FILE_TOOL, READ_FILE_TOOL, type CheckpointTranscriptEntry } from './host-metadata.js';
import type { LineRegion, WorkingSet, WorkingSetFile } from './schema.js';

/*
 * The working set: the files the agent read or edited most recently, carried by a forge-state
 * checkpoint as pointers (path, region, hash when seen) and rendered with their current text,
 * which the host reads from disk and hands in. Selection and layout are pure: the same transcript
 * and the same file contents give the same section, byte for byte.
 */

/** How big a working set may be; the host derives it from the compaction target (see `workingSetLimitsFor`). */
export interface WorkingSetLimits {
  /** Files kept in hand, most recent first. */
  readonly maxFiles: number;
  /** Characters of file text the section shows in all. */
  readonly maxChars: number;
  /** Characters of one file's text: a file up to this is shown whole, a larger one by region. */
  readonly maxFileChars: number;
}

/**
 * What the host found on disk for a file in hand when the view was rendered. `text` is the file's
 * content as it is now and `sha256` the hash of its bytes; `unreadable` says why there is no text
 * (binary, outside the workspace, too large, not a regular file).
 */
export type WorkingSetFileContent =
  | { readonly kind: 'text'; readonly text: string; readonly sha256: string }
  | { readonly kind: 'missing' }
  | { readonly kind: 'unreadable'; readonly reason: string };

/** Current contents by workspace-relative path, as the host read them; a path it was not asked about is absent. */
export type WorkingSetContents = ReadonlyMap<string, WorkingSetFileContent>;

/** Reads the files in hand from disk for a render; implemented by the host (core never touches the file system). */
export type WorkingSetReader = (paths: readonly string[]) => Promise<WorkingSetContents>;

/** What a render of the working set needs besides the checkpoint: the contents read now, and the redaction applied to them. */
export interface WorkingSetRenderInput {
  readonly contents: WorkingSetContents;
  /** Applied to every shown text; `file` lets a redactor treat key files (`*.pem`) as all secret. */
  readonly redact: (text: string, context?: { readonly file?: string }) => string;
}

/**
 * The current text of a working set's files, read through the host's `read`, for a render. A read
 * that fails marks every file unreadable rather than showing old text.
 */
export async function readFilesInHand(
  workingSet: WorkingSet,
  read: WorkingSetReader,
  redact: WorkingSetRenderInput['redact'],
): Promise<WorkingSetRenderInput> {
  const paths = workingSet.files.map((file) => file.path);
  let contents: WorkingSetContents;
  try {
    contents = paths.length === 0 ? new Map() : await read(paths);
  } catch {
    contents = new Map(paths.map((path) => [path, { kind: 'unreadable', reason: 'the host could not read it' }]));
  }
  return { contents, redact };
}

/** A file the section showed text of: what `edit_file` may accept without another read, while the hash still matches. */
export interface WorkingSetShownFile {
  readonly path: string;
  readonly sha256: string;
  /** `null`: the whole file was shown; otherwise only these lines. */
  readonly region: LineRegion | null;
}

/** Lines of context kept on each side of an edit's changed lines. */
export const EDIT_CONTEXT_LINES = 20;

/** One character per this many tokens when a token budget becomes a character budget (o200k on source code: about 4). */
export const WORKING_SET_CHARS_PER_TOKEN = 4;

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const line = z.number().int().min(1);
const readMetadataSchema = z.object({
  path: z.string().min(1),
  sha256,
  complete: z.boolean().optional(),
  startLine: line.optional(),
  endLine: line.optional(),
});
const editMetadataSchema = z.object({
  path: z.string().min(1),
  sha256After: sha256,
  startLine: line.optional(),
  endLine: line.optional(),
});

function region(startLine: number | undefined, endLine: number | undefined, context: number): LineRegion | null {
  if (startLine === undefined || endLine === undefined || endLine < startLine) return null;
  return { startLine: Math.max(1, startLine - context), endLine: endLine + context };
}

/** The working-set pointer a successful read_file or edit_file result gives, if any. */
function observedFile(toolName: string, metadata: JsonObject | undefined, seq: number): WorkingSetFile | null {
  if (metadata === undefined) return null;
  if (toolName === READ_FILE_TOOL) {
    const read = readMetadataSchema.safeParse(metadata);
    if (!read.success) return null;
    const partial = read.data.complete === false ? region(read.data.startLine, read.data.endLine, 0) : null;
    return { path: read.data.path, hash: read.data.sha256, region: partial, seq };
  }
  if (toolName === EDIT_FILE_TOOL) {
    const edit = editMetadataSchema.safeParse(metadata);
    if (!edit.success) return null;
    return {
      path: edit.data.path,
      hash: edit.data.sha256After,
      region: region(edit.data.startLine, edit.data.endLine, EDIT_CONTEXT_LINES),
      seq,
    };
  }
  return null;
}

/**
 * The files in hand at the end of `transcript`: the latest successful read_file or edit_file of
 * each file, most recent first, at most `limits.maxFiles`. Walks back from the end and stops once
 * it has them, so its cost follows the recent tail, not the session's length. A path the
 * redaction would change is left out: the section never names a secret, and the redacted name
 * would lead nowhere.
 */
export function selectWorkingSet(
  transcript: readonly CheckpointTranscriptEntry[],
  limits: WorkingSetLimits,
  redact: (text: string) => string,
): WorkingSet {
  const files: WorkingSetFile[] = [];
  const seen = new Set<string>();
  for (let seq = transcript.length - 1; seq >= 0 && files.length < limits.maxFiles; seq -= 1) {
    const { message } = transcript[seq] as CheckpointTranscriptEntry;
    if (message.role !== 'tool') continue;
    for (let index = message.content.length - 1; index >= 0 && files.length < limits.maxFiles; index -= 1) {
      const part = message.content[index];
      if (part === undefined || part.output.type === 'error-text') continue;
      const file = observedFile(part.toolName, part.metadata, seq);
      if (file === null || seen.has(file.path)) continue;
      seen.add(file.path);
      if (redact(file.path) === file.path && !/[\r\n]/.test(file.path)) files.push(file);
    }
  }
  return { maxChars: limits.maxChars, maxFileChars: limits.maxFileChars, files };
}

/** One file of a laid-out section. */
export type WorkingSetEntry =
  | {
      readonly kind: 'shown';
      readonly file: WorkingSetFile;
      readonly sha256: string;
      readonly totalLines: number;
      /** `null`: whole file. */
      readonly region: LineRegion | null;
      /** True when the region was cut short by a cap or the budget. */
      readonly cut: boolean;
      readonly lines: readonly string[];
    }
  | {
      readonly kind: 'not-shown';
      readonly file: WorkingSetFile;
      readonly reason: string;
      readonly sha256: string | null;
    };

/** A file's lines without their line endings; no empty last line after a final newline. */
function fileLines(text: string): string[] {
  if (text.length === 0) return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.map((item) => (item.endsWith('\r') ? item.slice(0, -1) : item));
}

/** What a line costs the budget: its characters and its newline. */
function lineCost(text: string): number {
  return text.length + 1;
}

function notShown(file: WorkingSetFile, content: WorkingSetFileContent | undefined): WorkingSetEntry | null {
  if (content === undefined)
    return { kind: 'not-shown', file, reason: 'not read: rendered without access to the workspace', sha256: file.hash };
  if (content.kind === 'missing')
    return {
      kind: 'not-shown',
      file,
      reason: 'gone from the workspace since it was last read or edited',
      sha256: null,
    };
  if (content.kind === 'unreadable')
    return { kind: 'not-shown', file, reason: `not shown: ${content.reason}`, sha256: null };
  return null;
}

/**
 * Lays the section out: each file in order, whole when its text fits `maxFileChars` and what is
 * left of `maxChars`, else the lines of its region (the whole file when it has none) from the
 * first, as many as fit. A file of which not one line fits is listed without text.
 */
export function layoutWorkingSet(workingSet: WorkingSet, contents: WorkingSetContents | undefined): WorkingSetEntry[] {
  let left = workingSet.maxChars;
  return workingSet.files.map((file): WorkingSetEntry => {
    const content = contents?.get(file.path);
    const absent = notShown(file, content);
    if (absent !== null || content === undefined || content.kind !== 'text') return absent as WorkingSetEntry;
    const lines = fileLines(content.text);
    const whole = lines.reduce((total, item) => total + lineCost(item), 0);
    const room = Math.min(workingSet.maxFileChars, left);
    if (whole <= room) {
      left -= whole;
      return { kind: 'shown', file, sha256: content.sha256, totalLines: lines.length, region: null, cut: false, lines };
    }
    // A region past the end of what the file now holds falls back to the file from its start.
    const wanted =
      file.region !== null && file.region.startLine <= lines.length
        ? file.region
        : { startLine: 1, endLine: lines.length };
    const start = wanted.startLine;
    const end = Math.min(wanted.endLine, lines.length);
    const shown: string[] = [];
    let used = 0;
    for (let number = start; number <= end; number += 1) {
      const text = lines[number - 1] as string;
      if (used + lineCost(text) > room) break;
      shown.push(text);
      used += lineCost(text);
    }
    if (shown.length === 0)
      return {
        kind: 'not-shown',
        file,
        reason: 'not shown: the working-set budget is spent; read_file it before relying on it',
        sha256: content.sha256,
      };
    left -= used;
    const last = start + shown.length - 1;
    return {
      kind: 'shown',
      file,
      sha256: content.sha256,
      totalLines: lines.length,
      region: { startLine: start, endLine: last },
      cut: last < end,
      lines: shown,
    };
  });
}

/** The files a render with `contents` shows text of, and which part: what the read ledger may accept. */
export function workingSetShown(
  workingSet: WorkingSet | undefined,
  contents: WorkingSetContents | undefined,
): WorkingSetShownFile[] {
  if (workingSet === undefined) return [];
  return layoutWorkingSet(workingSet, contents).flatMap((entry) =>
    entry.kind === 'shown' ? [{ path: entry.file.path, sha256: entry.sha256, region: entry.region }] : [],
  );
}

/** The paths a checkpoint holds in hand, most recent first (what `context.compaction.completed` reports as `filesInHand`). */
export function filesInHand(workingSet: WorkingSet | undefined): string[] {
  return workingSet === undefined ? [] : workingSet.files.map((file) => file.path);
}

/** The configured bounds of a working set (`context.workingSet`), in tokens. */
export interface WorkingSetBudget {
  /** Most tokens of file text in hand; 0 turns the working set off. */
  readonly maxTokens: number;
  /** Most tokens of one file: a file up to this is shown whole. */
  readonly maxFileTokens: number;
  /** Most files in hand. */
  readonly maxFiles: number;
}

/**
 * The defaults: at most 32,000 tokens, 10,000 for one file (a source file of about 1,000 lines),
 * 8 files. Within them a compaction gives the working set a quarter of its target (below).
 */
export const DEFAULT_WORKING_SET_BUDGET: WorkingSetBudget = Object.freeze({
  maxTokens: 32_000,
  maxFileTokens: 10_000,
  maxFiles: 8,
});

/** The share of the compaction target the files in hand may take. */
export const WORKING_SET_TARGET_SHARE = 0.25;

/** A working set smaller than this holds too little of any file to be worth its place, unless the target itself is tiny. */
export const WORKING_SET_FLOOR_TOKENS = 4000;

/**
 * The limits one compaction gives the working set: a quarter of the tokens the request comes down
 * to (`compactTargetTokens`), at least {@link WORKING_SET_FLOOR_TOKENS}, never more than
 * `budget.maxTokens` nor half the target; in characters at {@link WORKING_SET_CHARS_PER_TOKEN} a token.
 */
export function workingSetLimitsFor(budget: WorkingSetBudget, compactTargetTokens: number): WorkingSetLimits {
  const share = Math.max(WORKING_SET_FLOOR_TOKENS, Math.round(WORKING_SET_TARGET_SHARE * compactTargetTokens));
  const tokens = Math.max(0, Math.min(budget.maxTokens, share, Math.floor(compactTargetTokens / 2)));
  const fileTokens = Math.max(0, Math.min(budget.maxFileTokens, tokens));
  return {
    maxFiles: tokens === 0 ? 0 : budget.maxFiles,
    maxChars: tokens * WORKING_SET_CHARS_PER_TOKEN,
    maxFileChars: fileTokens * WORKING_SET_CHARS_PER_TOKEN,
  };
}
