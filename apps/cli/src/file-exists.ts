import { access } from 'node:fs/promises';

/** True when `path` exists and can be reached (any kind of file); false on any error. */
export async function fileExists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
