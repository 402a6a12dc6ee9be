import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkForgeHome, ensureForgeHome, ForgeHomeError, forgeHomeLayout, resolveForgeHome } from './home.js';
import { useTemporaryHome } from './temporary-home.test-helpers.js';

const temporaryHome = useTemporaryHome();

describe('resolveForgeHome', () => {
  const base = { homeDirectory: '/home/ada', cwd: '/work/project' };

  it('prefers the flag, then FORGE_HOME, then ~/.forge', () => {
    expect(resolveForgeHome({ ...base, flag: '/flag/home', env: { FORGE_HOME: '/env/home' } })).toBe('/flag/home');
    expect(resolveForgeHome({ ...base, env: { FORGE_HOME: '/env/home' } })).toBe('/env/home');
    expect(resolveForgeHome({ ...base, env: {} })).toBe('/home/ada/.forge');
  });

  it('ignores empty values, expands ~/ and resolves relative paths from cwd', () => {
    expect(resolveForgeHome({ ...base, flag: '', env: { FORGE_HOME: '  ' } })).toBe('/home/ada/.forge');
    expect(resolveForgeHome({ ...base, env: { FORGE_HOME: '~/forge-data' } })).toBe('/home/ada/forge-data');
    expect(resolveForgeHome({ ...base, flag: 'local/.forge', env: {} })).toBe('/work/project/local/.forge');
  });
});

describe('ensureForgeHome', () => {
  let previousUmask = 0;
  beforeEach(() => {
    previousUmask = process.umask(0o000);
  });
  afterEach(() => {
    process.umask(previousUmask);
  });

  it('creates the layout with mode 0700 even under a permissive umask', async () => {
    const home = join(await temporaryHome(), 'nested');
    const layout = await ensureForgeHome(home);
    expect(layout).toEqual(forgeHomeLayout(home));
    for (const directory of [join(home, '..'), layout.root, layout.sessions, layout.runs, layout.state]) {
      expect(((await stat(directory)).mode & 0o777).toString(8)).toBe('700');
    }
  });

  it('leaves the mode of a directory the user created alone', async () => {
    const home = await temporaryHome();
    await mkdir(home, { mode: 0o755 });
    await ensureForgeHome(home);
    expect(((await stat(home)).mode & 0o777).toString(8)).toBe('755');
    expect(((await stat(join(home, 'sessions'))).mode & 0o777).toString(8)).toBe('700');
  });
});

describe('checkForgeHome and ensureForgeHome on a home that cannot be a directory', () => {
  it('name FORGE_HOME and the file in the way, and create nothing', async () => {
    const home = await temporaryHome();
    await writeFile(home, 'a file');
    const isFile = `FORGE_HOME ${home} is a file, not a directory. Point FORGE_HOME (or --forge-home) at a directory you can write, or move the file away.`;
    await expect(checkForgeHome(home)).rejects.toThrow(isFile);
    await expect(ensureForgeHome(home)).rejects.toSatisfy(
      (error: unknown) => ForgeHomeError.isInstance(error) && error.message === isFile,
    );
    const below = join(home, 'deeper', 'forge');
    await expect(ensureForgeHome(below)).rejects.toThrow(
      `FORGE_HOME ${below} cannot be a directory: ${home} is a file.`,
    );
  });

  it('accept a home that does not exist yet, and one that is a directory', async () => {
    const home = await temporaryHome();
    await expect(checkForgeHome(join(home, 'not', 'yet'))).resolves.toBeUndefined();
    await mkdir(home);
    await expect(checkForgeHome(home)).resolves.toBeUndefined();
  });
});
