import { spawnSync } from 'node:child_process';
import { readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionLockedError } from './errors.js';
import { createSession, openSession } from './session-open.js';
import { loadTranscript } from './session-read.js';
import { sampleTranscript, useTemporaryHome } from './temporary-home.test-helpers.js';

const temporaryHome = useTemporaryHome();

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

async function sessionOnDisk(): Promise<{ home: string; id: string; lockFile: string }> {
  const home = await temporaryHome();
  const writer = await createSession(home, { workspaceRoot: null, id: 'shared' });
  await writer.appendMessages(sampleTranscript());
  await writer.close();
  return { home, id: writer.id, lockFile: join(writer.directory, 'lock') };
}

describe('the session writer lock', () => {
  it('is never seen half-written: a writer killed before publishing leaves only a draft, which does not block the session', async () => {
    const { home, id, lockFile } = await sessionOnDisk();
    const draft = join(lockFile, '..', 'lock.draft-killedwriter');
    await writeFile(draft, '{"pid":');
    const old = new Date(Date.now() - 60_000);
    await utimes(draft, old, old);
    const writer = await openSession(home, id);
    const owner = JSON.parse(await readFile(lockFile, 'utf8')) as { pid: number };
    expect(owner.pid).toBe(process.pid);
    expect((await readdir(join(lockFile, '..'))).filter((name) => name.startsWith('lock.draft-'))).toEqual([]);
    await writer.close();
  });

  it('refuses a second writer with a message naming the holder, and lets readers through', async () => {
    const { home, id, lockFile } = await sessionOnDisk();
    const first = await openSession(home, id);
    const error = await openSession(home, id).catch((caught: unknown) => caught);
    expect(SessionLockedError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      `Session shared is in use by process ${process.pid} (since ${(error as SessionLockedError).owner?.startedAt}); ` +
        'only one forge may write a session at a time. Finish or close that forge, or start a new session. ' +
        `If no such process is running, delete ${lockFile}.`,
    );
    expect((await loadTranscript(home, id)).messages).toEqual(sampleTranscript());
    await first.close();
    const second = await openSession(home, id);
    await second.close();
  });

  it('recovers a lock left by a process that no longer runs', async () => {
    const { home, id, lockFile } = await sessionOnDisk();
    const pid = deadPid();
    await writeFile(
      lockFile,
      JSON.stringify({ pid, hostname: hostname(), startedAt: '2025-01-01T00:00:00.000Z', token: 'old' }),
    );
    const writer = await openSession(home, id);
    expect(writer.openWarnings.map((warning) => warning.message)).toEqual([
      `Recovered the lock of session shared left by process ${pid}, which no longer runs.`,
    ]);
    expect(JSON.parse(await readFile(lockFile, 'utf8'))).toMatchObject({ pid: process.pid });
    await writer.close();
    expect(await readdir(join(home, 'sessions', id))).toEqual(['session.index.json', 'session.jsonl']);
  });

  it('recovers a lock whose pid now belongs to a process started after the lock was taken', async () => {
    const { home, id, lockFile } = await sessionOnDisk();
    // This test process is alive, and started long after 2025: its pid cannot be the lock's owner.
    await writeFile(
      lockFile,
      JSON.stringify({
        pid: process.pid,
        hostname: hostname(),
        startedAt: '2025-01-01T00:00:00.000Z',
        token: 'reused',
      }),
    );
    const writer = await openSession(home, id);
    expect(writer.openWarnings.map((warning) => warning.message)).toEqual([
      `Recovered the lock of session shared left by process ${process.pid}, which no longer runs.`,
    ]);
    await writer.close();
  });

  it('does not guess about a lock held on another host', async () => {
    const { home, id, lockFile } = await sessionOnDisk();
    await writeFile(
      lockFile,
      JSON.stringify({
        pid: deadPid(),
        hostname: 'elsewhere.example',
        startedAt: '2025-01-01T00:00:00.000Z',
        token: 't',
      }),
    );
    await expect(openSession(home, id)).rejects.toThrow(/in use by process \d+ on host elsewhere\.example/);
  });

  it('treats an unreadable lock as held while it is fresh and as stale once old', async () => {
    const { home, id, lockFile } = await sessionOnDisk();
    await writeFile(lockFile, '');
    await expect(openSession(home, id)).rejects.toThrow(/its lock file is unreadable/);
    const old = new Date(Date.now() - 60_000);
    await utimes(lockFile, old, old);
    const writer = await openSession(home, id);
    await writer.close();
  });

  it('does not read a lock file over 4 KiB: it is unreadable, whatever it starts with', async () => {
    const { home, id, lockFile } = await sessionOnDisk();
    const live = { pid: process.pid, hostname: hostname(), startedAt: new Date().toISOString(), token: 'padded' };
    await writeFile(lockFile, JSON.stringify(live) + ' '.repeat(5000));
    await expect(openSession(home, id)).rejects.toThrow(/its lock file is unreadable/);
    const old = new Date(Date.now() - 60_000);
    await utimes(lockFile, old, old);
    await (await openSession(home, id)).close();
  });

  it('keeps a lock it did not take when closing', async () => {
    const { home, id, lockFile } = await sessionOnDisk();
    const writer = await openSession(home, id);
    const foreign = JSON.stringify({ pid: process.pid, hostname: hostname(), startedAt: 'x', token: 'someone-else' });
    await writeFile(lockFile, foreign);
    await writer.close();
    expect(await readFile(lockFile, 'utf8')).toBe(foreign);
  });
});
