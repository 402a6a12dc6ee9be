import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** Creates directories under the system temp directory and removes them all after the file's tests. */
export function useTemporaryDirectories(): (prefix: string) => Promise<string> {
  const created: string[] = [];
  afterAll(async () => {
    await Promise.all(created.splice(0).map((directory) => rm(directory, { recursive: true, force: true })));
  });
  return async (prefix) => {
    const directory = await mkdtemp(join(tmpdir(), `forge-reliability-${prefix}-`));
    created.push(directory);
    return directory;
  };
}
