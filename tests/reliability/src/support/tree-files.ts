import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';

/** Every entry under `root` (files and directories), with its path relative to `root` and its mode. */
export async function walkTree(
  root: string,
): Promise<{ readonly path: string; readonly relative: string; readonly directory: boolean; readonly mode: number }[]> {
  const found: { path: string; relative: string; directory: boolean; mode: number }[] = [];
  const visit = async (directory: string): Promise<void> => {
    for (const entry of await readdir(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      const info = await stat(path);
      found.push({ path, relative: relative(root, path), directory: entry.isDirectory(), mode: info.mode & 0o777 });
      if (entry.isDirectory()) await visit(path);
    }
  };
  await visit(root);
  return found;
}

/** The text of every file under `root`, by relative path. */
export async function readTree(root: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await walkTree(root))
    if (!entry.directory) files.set(entry.relative, await readFile(entry.path, 'utf8'));
  return files;
}
