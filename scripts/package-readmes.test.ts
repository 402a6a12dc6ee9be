import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { packageDirectories, REPOSITORY_ROOT } from './repository.test-helpers.js';

/*
 * A package README's ```ts blocks are real programs: each is written into the package (so it
 * imports packages exactly as the package's own code does, its own name included), typechecked
 * with the repository's compiler settings and run with tsx. An example that no longer compiles,
 * throws, or fails one of its own assertions fails here.
 */

const execute = promisify(execFile);

/** Runs a program; a failure carries the program's own output (tsc reports on stdout). */
async function run(
  file: string,
  args: readonly string[],
  options: { cwd: string; timeout?: number },
): Promise<{ stdout: string }> {
  try {
    return await execute(file, args, options);
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${relative(root, file)} ${args.join(' ')} failed:\n${stdout}${stderr}`, { cause: error });
  }
}
const root = REPOSITORY_ROOT;
const bin = (name: string): string => join(root, 'node_modules', '.bin', name);

/** The ```ts blocks of a markdown file, in order. */
export function typescriptBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

// A package with its own readme.test.ts runs its example against the loopback server there, so it is not run twice.
const examples = packageDirectories().flatMap((dir) => {
  const readme = join(dir, 'README.md');
  if (!existsSync(readme) || existsSync(join(dir, 'src', 'readme.test.ts'))) return [];
  return typescriptBlocks(readFileSync(readme, 'utf8')).map((code, index) => ({
    dir,
    name: `${relative(root, readme)} block ${index + 1}`,
    code,
  }));
});

async function compileAndRun(dir: string, code: string): Promise<string> {
  const work = mkdtempSync(join(dir, '.readme-example-'));
  try {
    writeFileSync(join(work, 'example.ts'), code);
    const tsconfig = {
      extends: relative(work, join(root, 'tsconfig.base.json')),
      compilerOptions: { noEmit: true, customConditions: ['@forge/source'] },
      files: ['example.ts'],
    };
    writeFileSync(join(work, 'tsconfig.json'), JSON.stringify(tsconfig));
    await run(bin('tsc'), ['-p', work], { cwd: root });
    const { stdout } = await run(bin('tsx'), ['--conditions=@forge/source', join(work, 'example.ts')], {
      cwd: root,
      timeout: 60_000,
    });
    return stdout;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

describe('package README examples', () => {
  it('finds the examples, the core one included', () => {
    expect(examples.map((example) => example.name)).toContain('packages/core/README.md block 1');
  });

  it('extracts only ```ts blocks', () => {
    expect(typescriptBlocks('text\n```ts\nconst a = 1;\n```\n```sh\nls\n```\n```ts\nconst b = 2;\n```\n')).toEqual([
      'const a = 1;\n',
      'const b = 2;\n',
    ]);
  });

  for (const example of examples) {
    it(`compiles and runs ${example.name}`, { timeout: 120_000 }, async () => {
      const stdout = await compileAndRun(example.dir, example.code);
      expect(stdout.trim()).not.toBe('');
    });
  }

  it('fails an example that does not compile', { timeout: 120_000 }, async () => {
    await expect(
      compileAndRun(
        join(root, 'packages', 'core'),
        "import { runAgent } from '@forge/core';\nconst steps: number = runAgent;\n",
      ),
    ).rejects.toThrow(/TS2322/);
  });
});
