import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, temporaryDirectory } from '../test-support/cli-harness.js';

/*
 * FORGE_HOME that cannot be used — a file, a path below a file, a directory nobody may write —
 * gets one line naming FORGE_HOME, what is wrong and what to do, and exit code 2, whichever
 * command meets it first.
 */

let scratch: Awaited<ReturnType<typeof temporaryDirectory>>;

beforeEach(async () => {
  scratch = await temporaryDirectory('forge-home-errors-');
  await mkdir(path.join(scratch.path, 'workspace'));
});

afterEach(async () => {
  await chmod(scratch.path, 0o700);
  await scratch.remove();
});

const commands: readonly (readonly string[])[] = [
  ['run', '--model', 'scripted:demo', 'hi'],
  ['sessions', 'list'],
  ['context'],
  ['compact', '--last'],
  ['checkpoint', 'show', '--last'],
  ['config', 'show'],
  ['inspect', '--last'],
];

describe('a FORGE_HOME that is a file', () => {
  it.each(commands)('forge %s names FORGE_HOME, says it is a file and exits 2', async (...args) => {
    const home = path.join(scratch.path, 'home-file');
    await writeFile(home, 'not a directory\n');
    const { code, stderr } = await runCli(args, {
      cwd: path.join(scratch.path, 'workspace'),
      env: { FORGE_HOME: home },
    });
    expect(stderr).toBe(
      `forge: error: FORGE_HOME ${home} is a file, not a directory. Point FORGE_HOME (or --forge-home) at a directory you can write, or move the file away.\n`,
    );
    expect(code).toBe(2);
  });

  it('below a file, names the file in the way', async () => {
    const file = path.join(scratch.path, 'home-file');
    await writeFile(file, 'x');
    const home = path.join(file, 'forge');
    const { code, stderr } = await runCli(['inspect', '--last'], {
      cwd: path.join(scratch.path, 'workspace'),
      env: { FORGE_HOME: home },
    });
    expect(stderr).toBe(
      `forge: error: FORGE_HOME ${home} cannot be a directory: ${file} is a file. Point FORGE_HOME (or --forge-home) at a directory you can write, or move ${file} away.\n`,
    );
    expect(code).toBe(2);
  });
});
