import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSession, openSession } from './session-open.js';
import { loadTranscript } from './session-read.js';

/*
 * Regression (issue 17, point 9): on a full disk the errors said "ENOSPC: no space left on device,
 * write" and no more. Every write through a file handle now names the file. A real full file
 * system: a 256 KiB tmpfs, so it needs root to mount (skipped otherwise).
 */

const isRoot = process.getuid?.() === 0;
let mountPoint = '';

beforeEach(async () => {
  if (!isRoot) return;
  mountPoint = await mkdtemp(join(tmpdir(), 'forge-full-disk-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', mountPoint]);
});

afterEach(async () => {
  if (!isRoot) return;
  execFileSync('umount', [mountPoint]);
  await rm(mountPoint, { recursive: true, force: true });
});

/** Fills the file system: the write stops when it is full. */
async function fill(directory: string): Promise<void> {
  await writeFile(join(directory, 'filler'), Buffer.alloc(1024 * 1024)).catch(() => undefined);
}

describe.skipIf(!isRoot)('a full disk', () => {
  it('names the file when a new session cannot be written, and leaves no session behind', async () => {
    const home = join(mountPoint, 'home');
    const first = await createSession(home, { workspaceRoot: null, id: 'first' });
    await first.close();
    await fill(mountPoint);
    const error = await createSession(home, { workspaceRoot: null, id: 'second' }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'ENOSPC' });
    // The first write that fails is the lock of the session being built, in its hidden directory.
    expect((error as Error).message).toMatch(
      /^Could not write \/.*\/sessions\/\.creating-second-[0-9a-f]+\/lock \(ENOSPC: no space left on device, write\): the file system is full; free some space and retry\.$/,
    );
    await expect(loadTranscript(home, 'second')).rejects.toThrow(/No session second/);
  });

  it('names the log when an append fails, and keeps every record acknowledged before it', async () => {
    const home = join(mountPoint, 'home');
    const writer = await createSession(home, { workspaceRoot: null, id: 'appending' });
    await writer.appendMessages([{ role: 'user', content: 'kept' }]);
    await fill(mountPoint);
    const error = await writer
      .appendMessages([{ role: 'user', content: 'x'.repeat(64 * 1024) }])
      .catch((caught: unknown) => caught);
    expect((error as Error).message).toContain(`Writing to ${writer.logFile} failed (ENOSPC: no space left on device`);
    expect((error as Error).message).toContain(
      '): the file system is full; free some space and retry. Nothing more is written to it;',
    );
    await writer.close();
    await rm(join(mountPoint, 'filler'));
    const loaded = await loadTranscript(home, 'appending');
    expect(loaded.messages).toEqual([{ role: 'user', content: 'kept' }]);
    await (await openSession(home, 'appending')).close();
    expect((await readFile(writer.logFile, 'utf8')).split('\n').filter(Boolean)).toHaveLength(2);
  });
});
