import { lstat } from 'node:fs/promises';
import path from 'node:path';

/*
 * A directory git takes for a bare repository holds `HEAD`, `objects/` and `refs/` (and a
 * `config`, whose `core.pager` or `core.fsmonitor` git runs). Written by edit_file one file at a
 * time anywhere in the workspace, such a directory would make a later `git` command run there
 * execute what the model put in it. So edit_file treats these names as it treats `.git`.
 */

const REPOSITORY_FILES = ['HEAD', 'config'] as const;
const REPOSITORY_DIRECTORIES = ['objects', 'refs'] as const;

async function isKind(file: string, kind: 'file' | 'directory'): Promise<boolean> {
  try {
    const stats = await lstat(file);
    return kind === 'file' ? stats.isFile() : stats.isDirectory();
  } catch {
    return false;
  }
}

/**
 * Why writing `absolute` would help plant a git repository, or undefined: a `HEAD` or `config`
 * beside an `objects/` or `refs/` directory, or a file under `objects/` or `refs/` of a directory
 * that holds a `HEAD` or `config`.
 */
export async function plantsGitRepository(absolute: string): Promise<string | undefined> {
  const directory = path.dirname(absolute);
  const name = path.basename(absolute);
  if ((REPOSITORY_FILES as readonly string[]).includes(name)) {
    for (const sibling of REPOSITORY_DIRECTORIES)
      if (await isKind(path.join(directory, sibling), 'directory'))
        return `a ${name} file beside a ${sibling}/ directory is how git recognises a repository`;
  }
  for (let current = directory; current !== path.dirname(current); current = path.dirname(current)) {
    const parent = path.dirname(current);
    if (!(REPOSITORY_DIRECTORIES as readonly string[]).includes(path.basename(current))) continue;
    for (const file of REPOSITORY_FILES)
      if (await isKind(path.join(parent, file), 'file'))
        return `a file under ${path.basename(current)}/ beside a ${file} file is how git recognises a repository`;
  }
  return undefined;
}
