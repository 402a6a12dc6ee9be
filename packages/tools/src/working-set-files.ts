import { isUtf8 } from 'node:buffer';
import { sha256Hex } from '@forge/core';
import type { WorkingSetContents, WorkingSetFileContent } from '@forge/core/checkpoint';
import { isBinary, loadFile, formatBytes } from './text-file.js';
import { resolveWorkspacePath, WorkspacePathError } from './workspace.js';

/**
 * Files in hand larger than this are listed without text: reading them on every render would cost
 * more than showing a region of them saves (the section shows far less than this anyway).
 */
export const WORKING_SET_MAX_FILE_BYTES = 4 * 1024 * 1024;

/**
 * One file in hand as it is on disk now, loaded inside the workspace's confinement the way
 * read_file loads it: its text and the SHA-256 of its bytes, or why there is none.
 */
export async function readWorkingSetFile(root: string, requested: string): Promise<WorkingSetFileContent> {
  try {
    const target = await resolveWorkspacePath(root, requested);
    if (!target.exists) return { kind: 'missing' };
    const loaded = await loadFile(target.absolute, root, requested, { maxBytes: WORKING_SET_MAX_FILE_BYTES });
    switch (loaded.kind) {
      case 'missing':
        return { kind: 'missing' };
      case 'not-a-file':
        return { kind: 'unreadable', reason: `it is now a ${loaded.fileKind}, not a regular file` };
      case 'too-large':
        return {
          kind: 'unreadable',
          reason: `it is larger than ${formatBytes(loaded.limit)}; read_file the part you need`,
        };
      case 'hard-linked':
        return { kind: 'unreadable', reason: 'it has more than one hard link, so it is not opened' };
      case 'ok':
        if (isBinary(loaded.bytes)) return { kind: 'unreadable', reason: 'it is a binary file' };
        if (!isUtf8(loaded.bytes)) return { kind: 'unreadable', reason: 'it is not valid UTF-8 text' };
        return { kind: 'text', text: loaded.bytes.toString('utf8'), sha256: sha256Hex(loaded.bytes) };
    }
  } catch (error) {
    if (WorkspacePathError.isInstance(error)) return { kind: 'unreadable', reason: 'it is outside the workspace' };
    return { kind: 'unreadable', reason: 'it could not be read' };
  }
}

/** The files in hand at `paths` as they are now, by path. */
export async function readWorkingSetFiles(root: string, paths: readonly string[]): Promise<WorkingSetContents> {
  const contents = new Map<string, WorkingSetFileContent>();
  for (const path of paths) contents.set(path, await readWorkingSetFile(root, path));
  return contents;
}
