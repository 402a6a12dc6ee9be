import { stat } from 'node:fs/promises';
import type { Tool } from '@forge/core';
import { z } from 'zod';
import { displayPath } from '../display-path.js';
import { GitignoreRules } from '../gitignore.js';
import { comparePaths, walkWorkspace, type WalkEntry } from '../walk.js';
import { realWorkspaceRoot, resolveWorkspacePath } from '../workspace.js';
import { errorText, field, fileProblem, inputJsonSchema, parseToolInput, quote, text } from './tool-support.js';

const DEFAULT_MAX_ENTRIES = 500;
const LIMIT_MAX_ENTRIES = 5000;

const inputSchema = z.strictObject({
  path: z.string().min(1).optional().describe('Directory relative to the workspace root (default ".").'),
  recursive: z.boolean().optional().describe('Also list everything below it (default false).'),
  maxEntries: z
    .int()
    .min(1)
    .max(LIMIT_MAX_ENTRIES)
    .optional()
    .describe(`Most entries to return (default ${DEFAULT_MAX_ENTRIES}).`),
});

export interface ListFilesToolOptions {
  readonly root: string;
}

/**
 * `list_files`: lists a directory, optionally recursively, leaving out `.git` and what `.gitignore`
 * files exclude. Paths are workspace-relative and sorted; under a cap, shallow entries come first.
 */
export function createListFilesTool(options: ListFilesToolOptions): Tool {
  return {
    name: 'list_files',
    description:
      'List a directory of the workspace (recursive: true for everything below it). Skips .git and files excluded by .gitignore. ' +
      'Paths are relative to the workspace root; directories end with "/", symbolic links with "@". ' +
      'A name with a control character (such as a newline) is shown as a JSON string.',
    inputSchema: inputJsonSchema(inputSchema),
    risk: 'read',
    describe: (input) =>
      `list_files ${quote(field(input, 'path') ?? '.')}${field(input, 'recursive') === true ? ' (recursive)' : ''}`,
    async execute(input, context) {
      const parsed = parseToolInput('list_files', inputSchema, input);
      if (!parsed.ok) return parsed.result;
      const requested = parsed.value.path ?? '.';
      const maxEntries = parsed.value.maxEntries ?? DEFAULT_MAX_ENTRIES;
      try {
        const root = await realWorkspaceRoot(options.root);
        const start = await resolveWorkspacePath(root, requested);
        if (!(await stat(start.absolute)).isDirectory()) {
          return errorText(`"${requested}" is a file, not a directory; use read_file to read it.`);
        }
        const rules = new GitignoreRules(root);
        // A directory the user names explicitly is listed even when .gitignore excludes it.
        const startIgnored = await rules.isIgnored(start.relative, true);
        const entries: WalkEntry[] = [];
        let truncated = false;
        const walk = walkWorkspace({
          root,
          start: start.relative,
          recursive: parsed.value.recursive ?? false,
          order: 'breadth',
          ...(startIgnored ? {} : { gitignore: rules }),
          signal: context.signal,
        });
        for await (const entry of walk) {
          if (entries.length === maxEntries) {
            truncated = true;
            break;
          }
          entries.push(entry);
        }
        const lines = entries.map(render).sort(comparePaths);
        if (lines.length === 0) lines.push(`[list_files: "${start.relative}" is empty]`);
        if (startIgnored)
          lines.push(
            `[list_files: "${start.relative}" is excluded by .gitignore; listed without .gitignore filtering]`,
          );
        for (const note of rules.notes()) lines.push(`[list_files: ${note}]`);
        if (truncated) {
          lines.push(
            `[list_files: truncated after ${maxEntries} entries; list a subdirectory, or raise maxEntries (up to ${LIMIT_MAX_ENTRIES})]`,
          );
        }
        const listed = `${entries.length}${truncated ? '+' : ''} entr${entries.length === 1 && !truncated ? 'y' : 'ies'}`;
        return {
          ...text(lines.join('\n'), { path: start.relative, entries: entries.length, truncated }),
          summary: `listed ${start.relative} (${listed})`,
        };
      } catch (error) {
        return fileProblem(error, requested);
      }
    },
  };
}

function render(entry: WalkEntry): string {
  const shown = displayPath(entry.relative);
  if (entry.kind === 'directory') return `${shown}/`;
  if (entry.kind === 'symlink') return `${shown}@`;
  return shown;
}
