import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/** Whether `file` is a regular file this process may execute. */
export function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Where `program` would be started from: itself when it names a path (has a `/`), else the first
 * executable of that name in the directories of `searchPath`; undefined when there is none.
 */
export function findProgram(program: string, searchPath: string | undefined, cwd: string): string | undefined {
  if (program.includes('/')) {
    const file = path.resolve(cwd, program);
    return isExecutableFile(file) ? file : undefined;
  }
  for (const directory of (searchPath ?? '').split(path.delimiter)) {
    if (directory === '') continue;
    const file = path.resolve(cwd, directory, program);
    if (isExecutableFile(file)) return file;
  }
  return undefined;
}
