import { mkdir, open, realpath, rmdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { isInside } from '../workspace.js';
import { PROTECTED_WORKSPACE_ENTRIES } from './sandbox-settings.js';
import { entryExists } from '../entry-exists.js';

/*
 * A read-only bind needs something to bind over. When `AGENTS.md`, `.forge/` or `.git` does not
 * exist yet, Forge creates an empty placeholder (a file or a directory) for as long as a command
 * runs, so the command cannot create it either, and removes the placeholder afterwards if it is
 * still empty. Placeholders are counted per path: commands of this process that overlap share one,
 * and the last to end removes it.
 */

const placeholders = new Map<string, number>();

/** The read-only paths of a workspace-write command, and a function that removes the placeholders made for them. */
export interface ProtectedPaths {
  readonly readOnly: readonly string[];
  release(): Promise<void>;
}

async function createPlaceholder(file: string, kind: 'file' | 'directory'): Promise<boolean> {
  try {
    if (kind === 'directory') await mkdir(file);
    else await (await open(file, 'wx', 0o644)).close();
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

async function removeIfEmpty(file: string, kind: 'file' | 'directory'): Promise<void> {
  try {
    if (kind === 'directory') await rmdir(file);
    else if ((await stat(file)).size === 0) await unlink(file);
  } catch {
    // No longer empty, or already gone: it is left as it is.
  }
}

/**
 * Makes sure each protected entry of `root` exists and returns the paths to bind read-only. An
 * entry that is a symbolic link is protected at its target when that is inside the workspace (a
 * target outside it is read-only already).
 */
export async function protectWorkspaceEntries(root: string): Promise<ProtectedPaths> {
  const readOnly: string[] = [];
  const made: { readonly file: string; readonly kind: 'file' | 'directory' }[] = [];
  for (const { name, kind } of PROTECTED_WORKSPACE_ENTRIES) {
    const file = path.join(root, name);
    const count = placeholders.get(file);
    if (count !== undefined) {
      placeholders.set(file, count + 1);
      made.push({ file, kind });
      readOnly.push(file);
      continue;
    }
    if (!(await entryExists(file)) && (await createPlaceholder(file, kind))) {
      placeholders.set(file, 1);
      made.push({ file, kind });
      readOnly.push(file);
      continue;
    }
    let target: string;
    try {
      target = await realpath(file);
    } catch {
      continue;
    }
    if (isInside(root, target)) readOnly.push(target);
  }
  return {
    readOnly,
    async release() {
      for (const { file, kind } of made) {
        const left = (placeholders.get(file) ?? 1) - 1;
        if (left > 0) {
          placeholders.set(file, left);
          continue;
        }
        placeholders.delete(file);
        await removeIfEmpty(file, kind);
      }
    },
  };
}
