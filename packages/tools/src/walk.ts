import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { GitignoreRules } from './gitignore.js';

export type EntryKind = 'file' | 'directory' | 'symlink' | 'other';

export interface WalkEntry {
  /** Workspace-relative path with `/` separators. */
  readonly relative: string;
  readonly kind: EntryKind;
}

export interface WalkOptions {
  /** The workspace's real root. */
  readonly root: string;
  /** Workspace-relative directory to start from (`.` for the root). */
  readonly start: string;
  readonly recursive: boolean;
  /** `breadth` lists shallow entries first (useful under a cap); `depth` gives `find`-like order. */
  readonly order: 'breadth' | 'depth';
  /** Leave out ignored entries (and never enter ignored directories); `.git` is always left out. */
  readonly gitignore?: GitignoreRules;
  readonly signal?: AbortSignal;
}

/**
 * Yields the entries below `start`, children of each directory sorted by name, without following
 * symbolic links (a link to a directory is an entry, never entered).
 */
export async function* walkWorkspace(options: WalkOptions): AsyncGenerator<WalkEntry> {
  const pending = [options.start];
  while (pending.length > 0) {
    options.signal?.throwIfAborted();
    const directory = (options.order === 'breadth' ? pending.shift() : pending.pop()) as string;
    const children = await listDirectory(options, directory);
    const subdirectories: string[] = [];
    for (const child of children) {
      yield child;
      if (child.kind === 'directory' && options.recursive) subdirectories.push(child.relative);
    }
    if (options.order === 'breadth') pending.push(...subdirectories);
    else pending.push(...subdirectories.reverse());
  }
}

async function listDirectory(options: WalkOptions, directory: string): Promise<WalkEntry[]> {
  let dirents;
  try {
    dirents = await readdir(path.join(options.root, directory), { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A directory that vanished or cannot be read mid-walk is skipped rather than failing the whole listing.
    if (code === 'ENOENT' || code === 'EACCES' || code === 'EPERM' || code === 'ENOTDIR') return [];
    throw error;
  }
  dirents.sort((left, right) => compareNames(left.name, right.name));
  const entries: WalkEntry[] = [];
  for (const dirent of dirents) {
    if (dirent.name === '.git') continue;
    const relative = directory === '.' ? dirent.name : `${directory}/${dirent.name}`;
    const kind: EntryKind = dirent.isSymbolicLink()
      ? 'symlink'
      : dirent.isDirectory()
        ? 'directory'
        : dirent.isFile()
          ? 'file'
          : 'other';
    if (options.gitignore && (await options.gitignore.isIgnored(relative, kind === 'directory'))) continue;
    entries.push({ relative, kind });
  }
  return entries;
}

/** Orders by UTF-16 code units, independent of locale, so output is identical everywhere. */
export function compareNames(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Orders workspace-relative paths segment by segment, so a directory's contents follow it directly. */
export function comparePaths(left: string, right: string): number {
  const leftSegments = left.split('/');
  const rightSegments = right.split('/');
  const length = Math.min(leftSegments.length, rightSegments.length);
  for (let index = 0; index < length; index += 1) {
    const order = compareNames(leftSegments[index] as string, rightSegments[index] as string);
    if (order !== 0) return order;
  }
  return leftSegments.length - rightSegments.length;
}
