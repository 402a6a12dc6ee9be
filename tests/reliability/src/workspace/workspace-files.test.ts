import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JsonValue, Tool, ToolExecutionResult } from '@forge/core';
import { createWorkspaceTools, ReadLedger } from '@forge/tools';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTemporaryDirectories } from '../support/temporary-directories.js';

/*
 * Issue 10, point 6 (seed 004's file rules): every workspace tool refuses paths that leave the
 * workspace — by `..`, by an absolute path, through a symbolic link to a file or a directory, or
 * through a dangling link — with an error the model reads, never a thrown failure and never a byte
 * of the outside file; huge and binary files are refused or cut; names that are not UTF-8 do not
 * break listing, searching or reading.
 */

const temporaryDirectory = useTemporaryDirectories();
const OUTSIDE_SECRET = 'OUTSIDE-SECRET-5522';
let root = '';
let outside = '';
let tools: Map<string, Tool>;

beforeAll(async () => {
  const base = await temporaryDirectory('workspace-files');
  root = join(base, 'workspace');
  outside = join(base, 'outside');
  await mkdir(join(root, 'src'), { recursive: true });
  await mkdir(outside);
  await writeFile(join(outside, 'secret.txt'), `${OUTSIDE_SECRET}\n`);
  await writeFile(join(root, 'src', 'app.ts'), 'export const app = 1;\n');
  await symlink(join(outside, 'secret.txt'), join(root, 'link-to-secret.txt'));
  await symlink(outside, join(root, 'link-to-outside'));
  await symlink(join(outside, 'missing.txt'), join(root, 'dangling.txt'));
  await symlink('../../outside/secret.txt', join(root, 'src', 'relative-link.txt'));
  tools = new Map(
    createWorkspaceTools({ root, ledger: new ReadLedger(), commandTimeoutMs: 5_000 }).map((tool) => [tool.name, tool]),
  );
});

function call(name: string, input: JsonValue): Promise<ToolExecutionResult> {
  const tool = tools.get(name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return tool.execute(input, { toolCallId: `call_${name}`, signal: new AbortController().signal });
}

function outputText(result: ToolExecutionResult): string {
  return result.output.type === 'json' ? JSON.stringify(result.output.value) : result.output.value;
}

const ESCAPES = [
  '../outside/secret.txt',
  '../../etc/passwd',
  'src/../../outside/secret.txt',
  '/etc/passwd',
  join('..', 'outside'),
  '..',
  'link-to-secret.txt',
  'link-to-outside/secret.txt',
  'link-to-outside',
  'dangling.txt',
  'src/relative-link.txt',
  'src/\u0000../../outside/secret.txt',
  '',
  '   ',
];

describe('path confinement of every workspace tool', () => {
  it.each(ESCAPES)('read_file, edit_file, list_files, search and run_command refuse %j', async (path) => {
    const calls: [string, JsonValue][] = [
      ['read_file', { path }],
      ['edit_file', { path, mode: 'create', content: 'pwned\n' }],
      ['edit_file', { path, mode: 'rewrite', content: 'pwned\n' }],
      ['list_files', { path, recursive: true }],
      ['search', { pattern: 'OUTSIDE', path }],
      ['run_command', { argv: ['cat', 'secret.txt'], cwd: path }],
    ];
    for (const [name, input] of calls) {
      const result = await call(name, input).catch((error: unknown) => {
        throw new Error(`${name} threw instead of refusing ${JSON.stringify(path)}: ${String(error)}`);
      });
      const text = outputText(result);
      expect(text, `${name} ${JSON.stringify(path)}`).not.toContain(OUTSIDE_SECRET);
      expect(result.output.type, `${name} ${JSON.stringify(path)}: ${text}`).toBe('error-text');
    }
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe(`${OUTSIDE_SECRET}\n`);
  });

  it('search and list of the whole workspace never follow a link out of it', async () => {
    const searched = await call('search', { pattern: 'OUTSIDE-SECRET' });
    expect(outputText(searched)).not.toContain(OUTSIDE_SECRET);
    const listed = await call('list_files', { path: '.', recursive: true });
    expect(outputText(listed)).not.toContain('secret.txt\n');
    expect(outputText(listed)).toContain('link-to-outside@');
  });
});

describe('huge and binary files', () => {
  it('refuses a file over the 16 MiB limit and cuts a large one at the read cap without allowing an edit', async () => {
    await writeFile(join(root, 'huge.log'), Buffer.alloc(17 * 1024 * 1024, 0x61));
    const huge = await call('read_file', { path: 'huge.log' });
    expect(huge.output.type).toBe('error-text');
    expect(outputText(huge)).toMatch(/more than the 16\.0 MiB/);
    await writeFile(join(root, 'large.txt'), 'line of text\n'.repeat(100_000));
    const large = await call('read_file', { path: 'large.txt' });
    expect(large.output.type).toBe('text');
    expect(outputText(large).length).toBeLessThan(200 * 1024);
    expect(large.metadata).toMatchObject({ complete: false });
    const edit = await call('edit_file', {
      path: 'large.txt',
      mode: 'replace',
      old: 'line of text',
      new: 'changed',
      all: true,
    });
    expect(edit.output.type).toBe('error-text');
  });

  it('refuses binary files and skips them in search', async () => {
    await writeFile(join(root, 'image.bin'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x1a, 0x0a, 0x41, 0x42]));
    const read = await call('read_file', { path: 'image.bin' });
    expect(read.output.type).toBe('error-text');
    expect(outputText(read)).toMatch(/binary/);
    const searched = await call('search', { pattern: 'AB' });
    expect(outputText(searched)).not.toContain('image.bin');
  });
});

describe('file names that are not UTF-8', () => {
  it('do not break listing, searching or reading', async () => {
    const name = Buffer.concat([
      Buffer.from(join(root, 'src', 'name-')),
      Buffer.from([0xff, 0xfe, 0x80]),
      Buffer.from('.txt'),
    ]);
    await writeFile(name, 'needle in a strangely named file\n');
    await writeFile(join(root, 'src', 'ctrl-\u0007-name.txt'), 'needle with a bell in its name\n');
    const listed = await call('list_files', { path: 'src' });
    expect(listed.output.type).toBe('text');
    expect(outputText(listed)).toContain('name-');
    const searched = await call('search', { pattern: 'needle' });
    expect(searched.output.type).toBe('text');
    const listedName = outputText(listed)
      .split('\n')
      .find((line) => line.includes('name-\uFFFD'));
    if (listedName !== undefined) {
      const read = await call('read_file', { path: listedName.trim() });
      expect(['text', 'error-text']).toContain(read.output.type);
    }
  });
});
