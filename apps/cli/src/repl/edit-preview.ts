import { readFile, stat } from 'node:fs/promises';
import type { JsonObject, JsonValue, ToolCallRequest } from '@forge/core';
import { terminalLine, terminalText } from '@forge/core/terminal';
import { resolveWorkspacePath, unifiedDiff } from '@forge/tools';
import { renderDiff } from '../output/unified-diff.js';
import type { Style } from '../output/style.js';

/** Files larger than this are not diffed in an approval prompt. */
const PREVIEW_LIMIT_BYTES = 1024 * 1024;

function isObject(value: JsonValue): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function text(input: JsonObject, name: string): string | undefined {
  const value = input[name];
  return typeof value === 'string' ? value : undefined;
}

async function currentContent(absolute: string): Promise<string | undefined> {
  const info = await stat(absolute);
  if (!info.isFile() || info.size > PREVIEW_LIMIT_BYTES) return undefined;
  return readFile(absolute, 'utf8');
}

/**
 * What an `edit_file` call would change, as a coloured unified diff of the file now against the
 * file after the edit. An edit that cannot apply never gets here: the tool refuses it before
 * approval (`Tool.check`). Undefined for other tools and for files too large or not regular.
 * The file is only read, never written.
 */
export async function previewEdit(request: ToolCallRequest, root: string, style: Style): Promise<string | undefined> {
  if (request.toolName !== 'edit_file' || !isObject(request.input)) return undefined;
  const input = request.input;
  const file = text(input, 'path');
  const mode = text(input, 'mode');
  if (file === undefined) return undefined;
  try {
    const target = await resolveWorkspacePath(root, file);
    const before = target.exists ? await currentContent(target.absolute) : undefined;
    if (target.exists && before === undefined) return undefined;
    let after: string;
    if (mode === 'create' || mode === 'rewrite') {
      after = text(input, 'content') ?? '';
    } else if (mode === 'replace') {
      const old = text(input, 'old');
      if (before === undefined || old === undefined || old.length === 0 || !before.includes(old)) return undefined;
      const replacement = text(input, 'new') ?? '';
      after = input['all'] === true ? before.split(old).join(replacement) : before.replace(old, () => replacement);
    } else {
      return undefined;
    }
    const diff = unifiedDiff(mode === 'create' ? undefined : before, after, { path: target.relative });
    // The file's and the model's text are sanitized line by line before the diff is coloured.
    return diff.length === 0
      ? style.dim(`${terminalLine(target.relative)} would not change.\n`)
      : renderDiff(diff.map(terminalText), style);
  } catch {
    return undefined;
  }
}
