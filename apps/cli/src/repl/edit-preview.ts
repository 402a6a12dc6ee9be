import { readFile, stat } from 'node:fs/promises';
import type { JsonObject, JsonValue, ToolCallRequest } from '@forge/core';
import { resolveWorkspacePath } from '@forge/tools';
import { renderDiff, unifiedDiff } from '../output/unified-diff.js';
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
 * file after the edit, or a note saying why the edit will not apply as asked. Undefined for other
 * tools, malformed input, paths outside the workspace, and files too large or not regular: the tool
 * itself reports those when it runs. The file is only read, never written.
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
      if (mode === 'create' && target.exists) return style.yellow(`${target.relative} already exists; this create will fail.\n`);
    } else if (mode === 'replace') {
      const old = text(input, 'old');
      if (before === undefined || old === undefined || old.length === 0) return undefined;
      if (!before.includes(old)) return style.yellow(`The text to replace is not in ${target.relative}; this edit will fail and change nothing.\n`);
      const replacement = text(input, 'new') ?? '';
      after = input['all'] === true ? before.split(old).join(replacement) : before.replace(old, () => replacement);
    } else {
      return undefined;
    }
    const diff = unifiedDiff(mode === 'create' ? undefined : before, after, { path: target.relative });
    return diff.length === 0 ? style.dim(`${target.relative} would not change.\n`) : renderDiff(diff, style);
  } catch {
    return undefined;
  }
}
