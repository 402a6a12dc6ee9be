import { describe, expect, it } from 'vitest';
import { filesInPatch } from './patch-paths.js';
import { outputBody, parseToolOutput } from './tool-output.js';

describe('reading tool outputs of every Codex generation', () => {
  it.each([
    [
      '0.169 unified exec',
      'Chunk ID: ab12\nWall time: 0.1 seconds\nProcess exited with code 3\nOriginal token count: 1\nOutput:\nboom\n',
      3,
      'boom\n',
    ],
    [
      '0.169 apply_patch',
      'Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nA a.txt\n',
      0,
      'Success. Updated the following files:\nA a.txt\n',
    ],
    ['older JSON envelope', '{"output":"FAIL x\\n","metadata":{"exit_code":1,"duration_seconds":0.5}}', 1, 'FAIL x\n'],
    ['plain text', 'just text', undefined, 'just text'],
  ])('%s', (_name, raw, exitCode, body) => {
    const parsed = parseToolOutput(raw);
    expect(parsed.exitCode).toBe(exitCode);
    expect(outputBody(parsed.text)).toBe(body);
    expect(parsed.declined).toBe(false);
  });

  it('recognises a refusal and reads content lists and {content, success} objects', () => {
    expect(
      parseToolOutput('exec_command failed: CreateProcess { message: "Rejected(\\"rejected by user\\")" }').declined,
    ).toBe(true);
    expect(
      parseToolOutput([
        { type: 'input_text', text: 'a' },
        { type: 'input_text', text: 'b' },
      ]).text,
    ).toBe('ab');
    expect(parseToolOutput({ content: 'nope', success: false })).toMatchObject({ text: 'nope', success: false });
  });
});

describe('files named by a patch', () => {
  it('lists adds, updates, deletes and turns an update followed by Move to into a move', () => {
    const patch = [
      '*** Begin Patch',
      '*** Add File: new.ts',
      '+x',
      '*** Update File: old/name.ts',
      '*** Move to: new/name.ts',
      '@@',
      '-a',
      '+b',
      '*** Delete File: gone.ts',
      '*** End Patch',
    ].join('\n');
    expect(filesInPatch(patch)).toEqual([
      { path: 'new.ts', change: 'add' },
      { path: 'old/name.ts', change: 'move-from' },
      { path: 'new/name.ts', change: 'move-to' },
      { path: 'gone.ts', change: 'delete' },
    ]);
  });
});
