import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { link, readdir, rename, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { SessionLockedError, type LockOwner } from './errors.js';
import { isErrorCode, openPrivateFile } from './private-fs.js';
import { writeDurably } from '@forge/bounded-read';
import { readStoredFile } from './stored-file.js';

export const LOCK_FILE_NAME = 'lock';

/** A lock file this young with unreadable content may still be being written by its owner. */
const UNREADABLE_LOCK_GRACE_MS = 10_000;

/** A process must have started this long after the lock was written to count as a reused pid (clock ticks, rounding). */
const PID_REUSE_SLACK_MS = 2_000;

/** When process `pid` started (ms since the epoch), from the Linux process table; undefined elsewhere. */
function processStartedAt(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const bootSeconds = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    if (!Number.isFinite(ticks) || !Number.isFinite(bootSeconds)) return undefined;
    // Linux reports start times in clock ticks of 1/100 s (USER_HZ) on every architecture Node runs on.
    return bootSeconds * 1000 + ticks * 10;
  } catch {
    return undefined;
  }
}

/** An owner record is about 150 bytes; a larger lock file is unreadable, not read whole. */
const MAX_LOCK_BYTES = 4 * 1024;

const lockOwnerSchema = z.object({
  pid: z.number().int().positive(),
  hostname: z.string(),
  startedAt: z.string(),
  token: z.string().min(1),
});

/** A held writer lock. */
export interface SessionLock {
  readonly file: string;
  readonly owner: LockOwner;
  /** The owner of a dead process's lock this one replaced, if any. */
  readonly recoveredFrom: LockOwner | undefined;
  /** Removes the lock file if it is still ours. */
  release(): Promise<void>;
  /** The same lock after its session directory was renamed to `directory`. */
  relocate(directory: string): SessionLock;
}

function heldLock(file: string, owner: LockOwner, recoveredFrom: LockOwner | undefined): SessionLock {
  return {
    file,
    owner,
    recoveredFrom,
    release: () => releaseLock(file, owner.token),
    relocate: (directory) => heldLock(join(directory, LOCK_FILE_NAME), owner, recoveredFrom),
  };
}

async function readOwner(file: string): Promise<LockOwner | undefined> {
  try {
    const parsed = lockOwnerSchema.safeParse(
      JSON.parse((await readStoredFile(file, { maxBytes: MAX_LOCK_BYTES })).toString('utf8')),
    );
    return parsed.success ? parsed.data : undefined;
  } catch (error) {
    if (isErrorCode(error, 'ENOENT')) throw error;
    return undefined;
  }
}

/**
 * `alive`, `dead`, or `unknown` when the process is on another host. A live process that started
 * after the lock was taken is not its owner (the pid was reused), so the lock is `dead` too.
 */
function processState(owner: LockOwner): 'alive' | 'dead' | 'unknown' {
  if (owner.hostname !== hostname()) return 'unknown';
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    return isErrorCode(error, 'ESRCH') ? 'dead' : 'alive';
  }
  const started = processStartedAt(owner.pid);
  const locked = Date.parse(owner.startedAt);
  return started !== undefined && Number.isFinite(locked) && started > locked + PID_REUSE_SLACK_MS ? 'dead' : 'alive';
}

async function isAbandonedUnreadableLock(file: string): Promise<boolean> {
  try {
    return Date.now() - (await stat(file)).mtimeMs > UNREADABLE_LOCK_GRACE_MS;
  } catch {
    return false;
  }
}

/**
 * Moves a stale lock aside and deletes it. The rename is atomic, so of several processes
 * recovering at once only one moves it; if what was moved is not the lock judged stale (a new
 * owner took over meanwhile), it is linked back, which cannot overwrite a newer lock.
 */
async function removeStaleLock(file: string, stale: LockOwner | undefined): Promise<boolean> {
  const aside = `${file}.stale-${randomBytes(6).toString('hex')}`;
  try {
    await rename(file, aside);
  } catch (error) {
    if (isErrorCode(error, 'ENOENT')) return true;
    throw error;
  }
  const moved = await readOwner(aside).catch(() => undefined);
  if (stale !== undefined && moved?.token !== stale.token) {
    await link(aside, file).catch(() => undefined);
    await unlink(aside).catch(() => undefined);
    return false;
  }
  await unlink(aside).catch(() => undefined);
  return true;
}

/**
 * Takes the writer lock of the session in `directory`: a `lock` file created exclusively, holding
 * pid, host name, start time and a random token. A lock left by a process that no longer exists
 * on this host, or whose pid now belongs to a process started after the lock, is recovered; any other existing lock gives `SessionLockedError`.
 */
export async function acquireSessionLock(
  directory: string,
  sessionId: string,
  now: () => number = Date.now,
): Promise<SessionLock> {
  const file = join(directory, LOCK_FILE_NAME);
  const owner: LockOwner = {
    pid: process.pid,
    hostname: hostname(),
    startedAt: new Date(now()).toISOString(),
    token: randomBytes(12).toString('hex'),
  };
  let recoveredFrom: LockOwner | undefined;

  for (let attempt = 0; attempt < 5; attempt += 1) {
    if (await publishLock(file, owner)) {
      await removeAbandonedLockDrafts(directory, now);
      return heldLock(file, owner, recoveredFrom);
    }

    let existing: LockOwner | undefined;
    try {
      existing = await readOwner(file);
    } catch {
      continue;
    }
    const sameHost = existing === undefined || existing.hostname === hostname();
    const stale = existing === undefined ? await isAbandonedUnreadableLock(file) : processState(existing) === 'dead';
    if (!stale) throw new SessionLockedError({ sessionId, owner: existing, lockFile: file, sameHost });
    if (await removeStaleLock(file, existing)) recoveredFrom = existing;
  }
  throw new SessionLockedError({
    sessionId,
    owner: await readOwner(file).catch(() => undefined),
    lockFile: file,
    sameHost: true,
  });
}

const LOCK_DRAFT_PREFIX = `${LOCK_FILE_NAME}.draft-`;

/**
 * Writes the owner record to a private draft file and links it into place. `link` fails when a
 * lock already exists, like an exclusive create, but the lock appears with its whole content at
 * once: a process killed while writing leaves a draft, never a half-written lock that would look
 * held by nobody and block the session until its grace period ends.
 */
async function publishLock(file: string, owner: LockOwner): Promise<boolean> {
  const draft = `${join(file, '..', LOCK_DRAFT_PREFIX)}${owner.token}`;
  const handle = await openPrivateFile(draft, { exclusive: true });
  try {
    await writeDurably(handle, Buffer.from(JSON.stringify(owner)), file);
  } finally {
    await handle.close();
  }
  try {
    await link(draft, file);
    return true;
  } catch (error) {
    if (!isErrorCode(error, 'EEXIST')) throw error;
    return false;
  } finally {
    await unlink(draft).catch(() => undefined);
  }
}

/** Drafts left by processes killed between writing and linking; old enough that no one is still using them. */
async function removeAbandonedLockDrafts(directory: string, now: () => number): Promise<void> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(LOCK_DRAFT_PREFIX)) continue;
    const draft = join(directory, name);
    const modified = await stat(draft).then(
      (stats) => stats.mtimeMs,
      () => undefined,
    );
    if (modified !== undefined && now() - modified > UNREADABLE_LOCK_GRACE_MS)
      await unlink(draft).catch(() => undefined);
  }
}

async function releaseLock(file: string, token: string): Promise<void> {
  const current = await readOwner(file).catch(() => undefined);
  if (current?.token !== token) return;
  await unlink(file).catch((error: unknown) => {
    if (!isErrorCode(error, 'ENOENT')) throw error;
  });
}
