import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Tool } from '@forge/core';
import { z } from 'zod';
import { GitignoreRules } from '../gitignore.js';
import { isBinary } from '../text-file.js';
import { comparePaths, walkWorkspace } from '../walk.js';
import { realWorkspaceRoot, resolveWorkspacePath } from '../workspace.js';
import { errorText, field, fileProblem, inputJsonSchema, parseToolInput, quote, text } from './tool-support.js';

const DEFAULT_MAX_MATCHES = 200;
const LIMIT_MAX_MATCHES = 2000;
/** Files above this size are skipped: they are almost always generated or data. */
const MAX_SEARCHED_FILE_BYTES = 2 * 1024 * 1024;
const MAX_LINE_CHARACTERS = 300;

const inputSchema = z.strictObject({
  pattern: z.string().min(1).max(1000).describe('Text to find, or a JavaScript regular expression when regex is true.'),
  regex: z.boolean().optional().describe('Treat pattern as a regular expression (default false: literal text).'),
  caseSensitive: z.boolean().optional().describe('Match case exactly (default true).'),
  path: z.string().min(1).optional().describe('File or directory to search, relative to the workspace root (default ".").'),
  maxMatches: z.int().min(1).max(LIMIT_MAX_MATCHES).optional().describe(`Most matching lines to return (default ${DEFAULT_MAX_MATCHES}).`),
});

export interface SearchToolOptions {
  readonly root: string;
}

/**
 * `search`: finds lines matching literal text or a regular expression in the workspace's text
 * files, skipping `.git`, binary files and what `.gitignore` excludes. Results are
 * `path:line: text`, files in sorted order, bounded by a match cap.
 */
export function createSearchTool(options: SearchToolOptions): Tool {
  return {
    name: 'search',
    description:
      'Search the workspace for lines containing text (or matching a regular expression with regex: true). ' +
      'Skips .git, binary files and files excluded by .gitignore. Prints "path:line: text" per match.',
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
        return errorText(`The pattern is not a valid regular expression (${(error as Error).message}); fix it, or set regex: false to search for literal text.`);
      }

      try {
        const root = await realWorkspaceRoot(options.root);
        const start = await resolveWorkspacePath(root, requested);
        const files = await filesToSearch(root, start.relative, start.absolute, context.signal);
        const matches: string[] = [];
        let truncated = false;
        let searched = 0;
        let skippedLarge = 0;
        search: for (const file of files) {
          context.signal.throwIfAborted();
          const absolute = path.join(root, file);
          const info = await stat(absolute).catch(() => undefined);
          if (info === undefined || !info.isFile()) continue;
          if (info.size > MAX_SEARCHED_FILE_BYTES) {
            skippedLarge += 1;
            continue;
          }
          const bytes = await readFile(absolute).catch(() => undefined);
          if (bytes === undefined || isBinary(bytes)) continue;
          searched += 1;
          const lines = bytes.toString('utf8').split('\n');
          for (const [index, line] of lines.entries()) {
            if (!matcher.test(line)) continue;
            if (matches.length === maxMatches) {
              truncated = true;
              break search;
            }
            matches.push(`${file}:${index + 1}: ${clip(line.replace(/\r$/, ''))}`);
          }
        }
        const notes: string[] = [];
        if (matches.length === 0) notes.push(`[search: no matches for ${JSON.stringify(request.pattern)} in ${searched} files under "${start.relative}"]`);
        if (truncated) notes.push(`[search: stopped after ${maxMatches} matches; narrow the pattern or the path, or raise maxMatches (up to ${LIMIT_MAX_MATCHES})]`);
        if (skippedLarge > 0) notes.push(`[search: skipped ${skippedLarge} files larger than ${MAX_SEARCHED_FILE_BYTES / 1024 / 1024} MiB]`);
        const found = `${matches.length}${truncated ? '+' : ''} match${matches.length === 1 && !truncated ? '' : 'es'} in ${searched} file${searched === 1 ? '' : 's'}`;
        return {
          ...text([...matches, ...notes].join('\n'), { path: start.relative, matches: matches.length, filesSearched: searched, truncated }),
          summary: `searched ${start.relative} for ${quote(request.pattern, 60)} (${found})`,
        };
      } catch (error) {
        return fileProblem(error, requested);
      }
    },
  };
}

async function filesToSearch(root: string, start: string, absolute: string, signal: AbortSignal): Promise<string[]> {
  if (!(await stat(absolute)).isDirectory()) return [start];
  const rules = new GitignoreRules(root);
  // A directory the user names explicitly is searched even when .gitignore excludes it.
  const startIgnored = await rules.isIgnored(start, true);
  const files: string[] = [];
  const walk = walkWorkspace({ root, start, recursive: true, order: 'depth', ...(startIgnored ? {} : { gitignore: rules }), signal });
  for await (const entry of walk) if (entry.kind === 'file') files.push(entry.relative);
  return files.sort(comparePaths);
}

function escapeRegExp(literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function clip(line: string): string {
  return line.length > MAX_LINE_CHARACTERS ? `${line.slice(0, MAX_LINE_CHARACTERS)}… [line cut]` : line;
}
