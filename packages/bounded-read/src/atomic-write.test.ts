import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, open, readdir, readFile, rm, stat, writeFile, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { writeFileAtomic } from './atomic-write.js';

let root: string;
let directory: string;
let target: string;
/** The prototype every FileHandle shares, to make its writes and flushes fail on purpose. */
let fileHandle: { write: FileHandle['write']; datasync: FileHandle['datasync'] };

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'forge-atomic-write-'));
  const probe = await open(path.join(root, 'probe'), 'w');
  fileHandle = Object.getPrototypeOf(probe) as typeof fileHandle;
  await probe.close();
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

let run = 0;
beforeEach(async () => {
  directory = path.join(root, `case-${run++}`);
  await mkdir(directory);
  target = path.join(directory, 'notes.json');
  await writeFile(target, 'old content\n');
});
afterEach(() => {
  vi.restoreAllMocks();
});

function systemError(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${message}`), { code });
}

async function expectOldFileAndNoTemporary(): Promise<void> {
  expect(await readFile(target, 'utf8')).toBe('old content\n');
  expect(await readdir(directory)).toEqual(['notes.json']);
}

describe('writeFileAtomic', () => {
  it('replaces the file with the new content and leaves nothing else in the directory', async () => {
    await writeFileAtomic(target, 'new content\n', { syncDirectory: true });
    expect(await readFile(target, 'utf8')).toBe('new content\n');
    expect(await readdir(directory)).toEqual(['notes.json']);
  });

  it('leaves the old file intact and no temporary behind when the disk fills up halfway through the data', async () => {
    const write = fileHandle.write as (
      this: FileHandle,
      data: Uint8Array,
      offset: number,
      length: number,
    ) => Promise<unknown>;
    let calls = 0;
    vi.spyOn(fileHandle, 'write').mockImplementation(async function (
      this: FileHandle,
      ...args: Parameters<FileHandle['write']>
    ) {
      calls += 1;
      if (calls > 1) throw systemError('ENOSPC', 'no space left on device, write');
      const [data, offset] = args as unknown as [Uint8Array, number];
      // Half the data reaches the temporary, then the file system is full.
      return (await write.call(this, data, offset, Math.floor((data.length - offset) / 2))) as never;
    } as never);
    const error = await writeFileAtomic(target, 'x'.repeat(10_000)).catch(
      (caught: unknown) => caught as NodeJS.ErrnoException,
    );
    expect(calls).toBe(2);
    expect(error).toBeInstanceOf(Error);
    expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
    expect((error as Error).message).toBe(
      `Could not write ${target} (ENOSPC: no space left on device, write): the file system is full; free some space and retry.`,
    );
    await expectOldFileAndNoTemporary();
  });

  it('leaves the old file intact and no temporary behind when flushing the data fails', async () => {
    vi.spyOn(fileHandle as { datasync: FileHandle['datasync'] }, 'datasync').mockRejectedValue(
      systemError('EIO', 'i/o error, fdatasync'),
    );
    await expect(writeFileAtomic(target, 'new content\n')).rejects.toMatchObject({
      code: 'EIO',
      message: expect.stringContaining(`Could not write ${target}`),
    });
    await expectOldFileAndNoTemporary();
  });

  it('with flush false (a cache), replaces the file without flushing it', async () => {
    const datasync = vi.spyOn(fileHandle as { datasync: FileHandle['datasync'] }, 'datasync');
    await writeFileAtomic(target, 'cached\n', { flush: false });
    expect(datasync).not.toHaveBeenCalled();
    expect(await readFile(target, 'utf8')).toBe('cached\n');
    expect(await readdir(directory)).toEqual(['notes.json']);
  });

  it('leaves what is at the target and no temporary behind when the rename fails', async () => {
    await rm(target);
    await mkdir(target);
    await writeFile(path.join(target, 'inside'), 'kept');
    await expect(writeFileAtomic(target, 'new content\n')).rejects.toMatchObject({
      code: expect.stringMatching(/^(EISDIR|ENOTEMPTY|EEXIST)$/),
    });
    expect(await readFile(path.join(target, 'inside'), 'utf8')).toBe('kept');
    expect(await readdir(directory)).toEqual(['notes.json']);
  });

  it('with exclusive, refuses to replace an existing file and creates a missing one', async () => {
    await expect(writeFileAtomic(target, 'new content\n', { exclusive: true })).rejects.toMatchObject({
      code: 'EEXIST',
    });
    await expectOldFileAndNoTemporary();
    const fresh = path.join(directory, 'fresh.txt');
    await writeFileAtomic(fresh, 'made', { exclusive: true });
    expect(await readFile(fresh, 'utf8')).toBe('made');
    expect((await readdir(directory)).sort()).toEqual(['fresh.txt', 'notes.json']);
  });

  it('gives the file the mode asked for, whatever the umask, before any data is in it', async () => {
    const modes: number[] = [];
    const write = fileHandle.write;
    vi.spyOn(fileHandle, 'write').mockImplementation(async function (
      this: FileHandle,
      ...args: Parameters<FileHandle['write']>
    ) {
      modes.push((await this.stat()).mode & 0o777);
      return (await write.apply(this, args)) as never;
    } as never);
    const previous = process.umask(0o077);
    try {
      await writeFileAtomic(target, 'shared', { mode: 0o640 });
    } finally {
      process.umask(previous);
    }
    expect(modes).toEqual([0o640]);
    expect((await stat(target)).mode & 0o777).toBe(0o640);
  });

  it('removes the temporaries a killed writer of the same file left, and no others', async () => {
    const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    const dead = Number(child.stdout);
    const leftovers = [
      `.notes.json.forge-${dead}-0123456789ab.tmp`,
      `.notes.json.forge-1-0123456789ab.tmp`,
      `.other.json.forge-${dead}-0123456789ab.tmp`,
      '.notes.json.keep',
    ];
    for (const name of leftovers) await writeFile(path.join(directory, name), 'half');
    await writeFileAtomic(target, 'new content\n');
    // pid 1 still runs, so its temporary may belong to a write going on.
    expect((await readdir(directory)).sort()).toEqual(
      [
        `.notes.json.forge-1-0123456789ab.tmp`,
        '.notes.json.keep',
        `.other.json.forge-${dead}-0123456789ab.tmp`,
        'notes.json',
      ].sort(),
    );
  });
});
