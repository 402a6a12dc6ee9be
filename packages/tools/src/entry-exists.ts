import { lstat } from 'node:fs/promises';

/** Whether something is at `file`, without following a final symbolic link (a dangling link counts). */
export async function entryExists(file: string): Promise<boolean> {
  try {
    await lstat(file);
    return true;
  } catch {
    return false;
  }
}
