import { stat } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../cli-error.js';

/** The workspace root for `--cwd` (resolved against `cwd`), or `cwd` itself; it must be an existing directory. */
export async function resolveWorkspaceRoot(cwd: string, requested: string | undefined): Promise<string> {
  const root = path.resolve(cwd, requested ?? '.');
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(root)).isDirectory();
  } catch {
    throw new UsageError(`--cwd ${root} does not exist; pass an existing directory`);
  }
  if (!isDirectory) throw new UsageError(`--cwd ${root} is not a directory; pass the workspace directory`);
  return root;
}
