import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, open, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeRefusal, openRegularFile, readRegularFile } from './regular-file.js';

let directory: string;

beforeAll(async () => {
  directory = await realpath(await mkdtemp(path.join(tmpdir(), 'forge-bounded-read-')));
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** Fails the test instead of hanging it when a read blocks. */
function withinSeconds<T>(work: Promise<T>, seconds = 5): Promise<T> {
  return Promise.race([
    work,
    new Promise<T>((_resolve, reject) =>
      setTimeout(() => reject(new Error(`still waiting after ${seconds} s`)), seconds * 1000),
    ),
  ]);
}

describe('readRegularFile', () => {
  it('reads a regular file whole within the limit', async () => {
    const file = path.join(directory, 'small.txt');
    await writeFile(file, 'hello\n');
    const read = await readRegularFile(file, { maxBytes: 100 });
    expect(read.kind === 'read' && read.bytes.toString()).toBe('hello\n');
  });

  it('says a missing file is missing, also below a path component that is a file', async () => {
    expect(await readRegularFile(path.join(directory, 'nothing-here'))).toEqual({ kind: 'missing' });
    await writeFile(path.join(directory, 'plain'), 'x');
    expect(await readRegularFile(path.join(directory, 'plain', 'below'))).toEqual({ kind: 'missing' });
  });

  it('refuses a FIFO at once instead of waiting for a writer', async () => {
    const fifo = path.join(directory, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const read = await withinSeconds(readRegularFile(fifo, { maxBytes: 1024 }));
    expect(read).toEqual({ kind: 'not-regular', fileKind: 'FIFO' });
    expect(describeRefusal(fifo, read as Exclude<typeof read, { kind: 'read' }>)).toBe(
      `${fifo} is a FIFO, not a regular file`,
    );
  });

  it('refuses a symbolic link to /dev/zero without reading from it', async () => {
    const link = path.join(directory, 'zero');
    await symlink('/dev/zero', link);
    expect(await withinSeconds(readRegularFile(link, { maxBytes: 1024 }))).toEqual({
      kind: 'not-regular',
      fileKind: 'character device',
    });
  });

  it('refuses a symbolic link itself when told not to follow links', async () => {
    const target = path.join(directory, 'target.txt');
    const link = path.join(directory, 'link.txt');
    await writeFile(target, 'content');
    await symlink(target, link);
    expect(await readRegularFile(link, { followSymlinks: false })).toEqual({
      kind: 'not-regular',
      fileKind: 'symbolic link',
    });
    expect((await readRegularFile(link)).kind).toBe('read');
  });

  it('refuses a directory', async () => {
    const child = path.join(directory, 'a-directory');
    await mkdir(child);
    expect(await readRegularFile(child)).toEqual({ kind: 'not-regular', fileKind: 'directory' });
  });

  it('refuses a 40 MB sparse file by its size, without reading it', async () => {
    const sparse = path.join(directory, 'sparse');
    const handle = await open(sparse, 'w');
    await handle.truncate(40 * 1024 * 1024);
    await handle.close();
    const before = process.memoryUsage().rss;
    const read = await readRegularFile(sparse, { maxBytes: 1024 * 1024 });
    expect(read).toEqual({ kind: 'too-large', size: 40 * 1024 * 1024, limit: 1024 * 1024 });
    expect(process.memoryUsage().rss - before).toBeLessThan(16 * 1024 * 1024);
    expect(describeRefusal(sparse, read as Exclude<typeof read, { kind: 'read' }>)).toBe(
      `${sparse} is 40.0 MiB, more than the 1.0 MiB Forge reads of it`,
    );
  });

  it('bounds a file whose reported size is wrong (a /proc file says 0 bytes)', async () => {
    const read = await readRegularFile('/proc/self/status', { maxBytes: 16 });
    expect(read.kind).toBe('too-large');
  });
});

describe('openRegularFile', () => {
  it('returns an open handle and the stats of what it opened', async () => {
    const file = path.join(directory, 'opened.txt');
    await writeFile(file, 'abc');
    const opened = await openRegularFile(file, { maxBytes: 10 });
    if (opened.kind !== 'opened') throw new Error(`not opened: ${opened.kind}`);
    try {
      expect(opened.stats.size).toBe(3);
      expect(opened.stats.nlink).toBe(1);
    } finally {
      await opened.handle.close();
    }
  });
});
