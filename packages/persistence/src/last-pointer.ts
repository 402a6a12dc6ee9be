import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '@forge/bounded-read';
import { z } from 'zod';
import { PRIVATE_FILE_MODE } from './private-fs.js';
import { readStoredFile } from './stored-file.js';

/*
 * `sessions/.last-<hash of the workspace>`: the session of that workspace a writer with messages
 * closed most recently, so `--last` finds it without reading every session's index. A hint only:
 * the session it names is read and checked like any other, and a missing or wrong hint falls back
 * to the listing.
 */

const pointerSchema = z.object({ workspaceRoot: z.string(), id: z.string() });

function pointerFile(sessionsDirectory: string, workspaceRoot: string): string {
  return join(sessionsDirectory, `.last-${createHash('sha256').update(workspaceRoot).digest('hex').slice(0, 32)}`);
}

/** Records that `id`, in `sessionDirectory`, is the newest session of `workspaceRoot`; failures are ignored (it is a hint). */
export async function pointLastSession(sessionDirectory: string, workspaceRoot: string, id: string): Promise<void> {
  const file = pointerFile(dirname(sessionDirectory), workspaceRoot);
  try {
    await writeFileAtomic(file, JSON.stringify({ workspaceRoot, id }), { mode: PRIVATE_FILE_MODE, flush: false });
  } catch {
    // Without the hint, --last reads the listing.
  }
}

/** The session id the hint names for `workspaceRoot`, if there is a readable hint. */
export async function pointedLastSession(
  sessionsDirectory: string,
  workspaceRoot: string,
): Promise<string | undefined> {
  try {
    const text = (
      await readStoredFile(pointerFile(sessionsDirectory, workspaceRoot), { maxBytes: 16 * 1024 })
    ).toString('utf8');
    const parsed = pointerSchema.safeParse(JSON.parse(text));
    return parsed.success && parsed.data.workspaceRoot === workspaceRoot ? parsed.data.id : undefined;
  } catch {
    return undefined;
  }
}
