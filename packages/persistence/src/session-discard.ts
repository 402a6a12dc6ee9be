import { rename, rm } from 'node:fs/promises';
import { forgeHomeLayout } from './home.js';
import { temporarySessionDirectory } from './session-files.js';
import type { SessionWriter } from './session-writer.js';

/**
 * Closes `writer` and removes its session. The directory is renamed aside while the lock is still
 * held, so no other writer can have opened it meanwhile; when the rename fails, the session is
 * only closed and stays where it was.
 */
export async function discardSession(home: string, writer: SessionWriter): Promise<void> {
  const aside = temporarySessionDirectory(forgeHomeLayout(home), writer.id, 'discarding');
  try {
    await rename(writer.directory, aside);
  } catch {
    await writer.close();
    return;
  }
  await writer.close();
  await rm(aside, { recursive: true, force: true });
}
