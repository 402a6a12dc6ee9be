import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Tool } from '@forge/core';
import { z } from 'zod';
import { displayPath } from '../display-path.js';
import { GitignoreRules } from '../gitignore.js';
import { isBinary, loadFile } from '../text-file.js';
import { comparePaths, walkWorkspace } from '../walk.js';
import { realWorkspaceRoot, resolveWorkspacePath } from '../workspace.js';
import { inlineMatcher, RegexWorkers, type LineMatcher } from './line-matcher.js';
import { errorText, field, fileProblem, inputJsonSchema, parseToolInput, quote, text } from './tool-support.js';

const DEFAULT_MAX_MATCHES = 200;
const LIMIT_MAX_MATCHES = 2000;
/** Files above this size are skipped: they are almost always generated or data. */
const MAX_SEARCHED_FILE_BYTES = 2 * 1024 * 1024;
const MAX_LINE_CHARACTERS = 300;
/** Matching time one regular-expression search may take in all, unless the tool is given another. */
const DEFAULT_REGEX_TIME_LIMIT_MS = 5_000;

const inputSchema = z.strictObject({
  pattern: z.string().min(1).max(1000).describe('Text to find, or a JavaScript regular expression when regex is true.'),
  regex: z.boolean().optional().describe('Treat pattern as a regular expression (default false: literal text).'),
  caseSensitive: z.boolean().optional().describe('Match case exactly (default true).'),
  path: z
    .string()
    .min(1)
    .optional()
    .describe('File or directory to search, relative to the workspace root (default ".").'),
  maxMatches: z
    .int()
    .min(1)
    .max(LIMIT_MAX_MATCHES)
    .optional()
    .describe(`Most matching lines to return (default ${DEFAULT_MAX_MATCHES}).`),
});

export interface SearchToolOptions {
  readonly root: string;
  /** Matching time a regular-expression search may take in all (default 5 s); literal text has no bound, it runs in linear time. */
  readonly regexTimeLimitMs?: number;
}

/**
 * `search`: finds lines matching literal text or a regular expression in the workspace's text
 * files, skipping `.git`, binary files and what `.gitignore` excludes. Results are
 * `path:line: text`, files in sorted order, bounded by a match cap. A regular expression runs off
 * the main thread within a time bound (see `line-matcher.ts`); the result says when it ran out.
 */
export function createSearchTool(options: SearchToolOptions): Tool {
  const regexWorkers = new RegexWorkers();
  return {
    name: 'search',
    description:
      'Search the workspace for lines containing text (or matching a regular expression with regex: true). ' +
      'Skips .git, binary files and files excluded by .gitignore. Prints "path:line: text" per match ' +
      '(a path with a control character, such as a newline, as a JSON string).',
    inputSchema: inputJsonSchema(inputSchema),
    risk: 'read',
    describe: (input) => `search ${quote(field(input, 'pattern'))} in ${quote(field(input, 'path') ?? '.')}`,
    async execute(input, context) {
      const parsed = parseToolInput('search', inputSchema, input);
      if (!parsed.ok) return parsed.result;
      const request = parsed.value;
      const requested = request.path ?? '.';
      const maxMatches = request.maxMatches ?? DEFAULT_MAX_MATCHES;
      const flags = request.caseSensitive === false ? 'i' : '';
      let matcher: RegExp;
      try {
        matcher = new RegExp(request.regex === true ? request.pattern : escapeRegExp(request.pattern), flags);
      } catch (error) {
        return errorText(
          `The pattern is not a valid regular expression (${(error as Error).message}); fix it, or set regex: false to search for literal text.`,
        );
      }

      const timeLimitMs = options.regexTimeLimitMs ?? DEFAULT_REGEX_TIME_LIMIT_MS;
      let lineMatcher: LineMatcher | undefined;
      try {
        const root = await realWorkspaceRoot(options.root);
        const start = await resolveWorkspacePath(root, requested);
        const { files, notes: gitignoreNotes } = await filesToSearch(
          root,
          start.relative,
          start.absolute,
          context.signal,
        );
        lineMatcher =
          request.regex === true
            ? regexWorkers.matcher(matcher, { timeLimitMs, signal: context.signal })
            : inlineMatcher(matcher);
        const scan = await scanFiles({ root, files, lineMatcher, maxMatches, signal: context.signal });
        const { matches, truncated, timedOut, searched } = scan;
        const notes = [
          ...searchNotes(scan, {
            timeLimitMs,
            filesCount: files.length,
            pattern: request.pattern,
            start: start.relative,
            maxMatches,
          }),
          ...gitignoreNotes.map((note) => `[search: ${note}]`),
        ];
        const found = `${matches.length}${truncated ? '+' : ''} match${matches.length === 1 && !truncated ? '' : 'es'} in ${searched} file${searched === 1 ? '' : 's'}${timedOut ? ', stopped by the time bound' : ''}`;
        return {
          ...text([...matches, ...notes].join('\n'), {
            path: start.relative,
            matches: matches.length,
            filesSearched: searched,
            truncated,
            ...(timedOut ? { timedOut } : {}),
          }),
          summary: `searched ${start.relative} for ${quote(request.pattern, 60)} (${found})`,
        };
      } catch (error) {
        return fileProblem(error, requested);
      } finally {
        await lineMatcher?.close();
      }
    },
  };
}

interface FileScan {
  readonly root: string;
  readonly files: readonly string[];
  readonly lineMatcher: LineMatcher;
  readonly maxMatches: number;
  readonly signal: AbortSignal;
}

interface ScanResult {
  readonly matches: string[];
  readonly truncated: boolean;
  readonly timedOut: boolean;
  readonly searched: number;
  readonly skippedLarge: number;
  readonly skippedLinked: number;
}

/** Matches files in order until the match cap or the time bound stops the search. */
async function scanFiles({ root, files, lineMatcher, maxMatches, signal }: FileScan): Promise<ScanResult> {
  const matches: string[] = [];
  let truncated = false;
  let timedOut = false;
  let searched = 0;
  let skippedLarge = 0;
  let skippedLinked = 0;
  search: for (const file of files) {
    signal.throwIfAborted();
    // Files that vanished, turned into something else or moved out of reach meanwhile are passed over.
    const loaded = await loadFile(path.join(root, file), root, file, { maxBytes: MAX_SEARCHED_FILE_BYTES }).catch(
      () => undefined,
    );
    if (loaded?.kind === 'too-large') skippedLarge += 1;
    if (loaded?.kind === 'hard-linked') skippedLinked += 1;
    if (loaded?.kind !== 'ok') continue;
    const { bytes } = loaded;
    if (isBinary(bytes)) continue;
    const found = await lineMatcher.match(bytes.toString('utf8'), maxMatches - matches.length + 1);
    if (found.kind === 'timed-out') {
      timedOut = true;
      break;
    }
    searched += 1;
    for (const { index, line } of found.lines) {
      if (matches.length === maxMatches) {
        truncated = true;
        break search;
      }
      matches.push(`${displayPath(file)}:${index + 1}: ${clip(line.replace(/\r$/, ''))}`);
    }
  }
  return { matches, truncated, timedOut, searched, skippedLarge, skippedLinked };
}

/** The bracketed notes after the matches: why the search stopped, found nothing or skipped files. */
function searchNotes(
  scan: ScanResult,
  search: {
    readonly timeLimitMs: number;
    readonly filesCount: number;
    readonly pattern: string;
    readonly start: string;
    readonly maxMatches: number;
  },
): string[] {
  const notes: string[] = [];
  if (scan.timedOut) {
    notes.push(
      `[search: stopped after ${search.timeLimitMs} ms of matching, the time bound of a regular-expression search: ${scan.searched} of ${search.filesCount} files were searched. ` +
        'The pattern is probably too costly (nested repetition such as (a+)+ can take exponential time on one line); simplify it, search for literal text, or narrow the path]',
    );
  } else if (scan.matches.length === 0)
    notes.push(
      `[search: no matches for ${JSON.stringify(search.pattern)} in ${scan.searched} files under "${search.start}"]`,
    );
  if (scan.truncated)
    notes.push(
      `[search: stopped after ${search.maxMatches} matches; narrow the pattern or the path, or raise maxMatches (up to ${LIMIT_MAX_MATCHES})]`,
    );
  if (scan.skippedLarge > 0)
    notes.push(`[search: skipped ${scan.skippedLarge} files larger than ${MAX_SEARCHED_FILE_BYTES / 1024 / 1024} MiB]`);
  if (scan.skippedLinked > 0)
    notes.push(
      `[search: skipped ${scan.skippedLinked} files with more than one hard link: another link may be outside the workspace]`,
    );
  return notes;
}

async function filesToSearch(
  root: string,
  start: string,
  absolute: string,
  signal: AbortSignal,
): Promise<{ files: string[]; notes: string[] }> {
  if (!(await stat(absolute)).isDirectory()) return { files: [start], notes: [] };
  const rules = new GitignoreRules(root);
  // A directory the user names explicitly is searched even when .gitignore excludes it.
  const startIgnored = await rules.isIgnored(start, true);
  const files: string[] = [];
  const walk = walkWorkspace({
    root,
    start,
    recursive: true,
    order: 'depth',
    ...(startIgnored ? {} : { gitignore: rules }),
    signal,
  });
  for await (const entry of walk) if (entry.kind === 'file') files.push(entry.relative);
  return { files: files.sort(comparePaths), notes: rules.notes() };
}

function escapeRegExp(literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function clip(line: string): string {
  return line.length > MAX_LINE_CHARACTERS ? `${line.slice(0, MAX_LINE_CHARACTERS)}… [line cut]` : line;
}
