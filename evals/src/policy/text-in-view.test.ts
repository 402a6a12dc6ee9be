import type { JsonObject, Message } from '@forge/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { viewRequest } from './request-view.js';
import { currentTexts, passageInView, textInView, workingSetFiles } from './text-in-view.js';

const FILE = 'export function add(a, b) {\n  return a - b;\n}\n';

function exchange(id: string, toolName: string, input: JsonObject, output: string, error = false): Message[] {
  return [
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName, input }] },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: id,
          toolName,
          output: error ? { type: 'error-text', value: output } : { type: 'text', value: output },
        },
      ],
    },
  ];
}

const read = (id: string, output = FILE) => exchange(id, 'read_file', { path: 'src/math.js' }, output);
const edit = (id: string, old: string, replacement: string, error = false) =>
  exchange(
    id,
    'edit_file',
    { path: 'src/math.js', mode: 'replace', old, new: replacement },
    error ? 'refused' : 'Replaced 1 occurrence.',
    error,
  );

function view(history: Message[], checkpoint?: string) {
  return viewRequest({
    instructions: '',
    ...(checkpoint === undefined ? {} : { checkpoint }),
    history,
    currentRequest: { role: 'user', content: 'Fix add().' },
    continuation: [],
    tools: [],
  });
}

const WORKING_SET = [
  '[SESSION_CHECKPOINT v1]',
  '[TASK]',
  '- latest user request (user#4): fix add()',
  '[WORKING_SET]',
  'files in hand: 1, read from disk when this checkpoint was rendered; edit them without reading again',
  '- file:src/math.js sha256 0123456789ab, whole file, 3 lines',
  '| export function add(a, b) {',
  '|   return a - b;',
  '| }',
  '|',
  '| [DIGEST]',
  '[DIGEST]',
  '- #1 assistant: read src/math.js',
].join('\n');

describe('text in view', () => {
  it("sees the text of a visible read, and the agent's own later edit applied to it", () => {
    expect(textInView(view(read('r1')), 'src/math.js', 'return a - b;')).toBe(true);
    const edited = view([...read('r1'), ...edit('e1', 'return a - b;', 'return a + b;')]);
    expect(textInView(edited, 'src/math.js', 'return a - b;')).toBe(false);
    expect(textInView(edited, 'src/math.js', 'export function add(a, b) {\n  return a + b;')).toBe(true);
    // A refused edit changed nothing.
    expect(
      textInView(
        view([...read('r1'), ...edit('e1', 'return a - b;', 'return a + b;', true)]),
        'src/math.js',
        'return a - b;',
      ),
    ).toBe(true);
  });

  it('does not count a projected output or an out-of-date note, whatever they quote', () => {
    const projected = `[tool output projected: read_file succeeded; 2,400 characters, sha256 0011223344556677; the first 400 follow]\n${FILE}\n[… 0 characters left out]`;
    expect(textInView(view(read('r1', projected)), 'src/math.js', 'return a - b;')).toBe(false);
    expect(
      textInView(
        view(read('r1', '[tool output out of date: read_file of src/math.js returned sha256 0123; ...]')),
        'src/math.js',
        'return a - b;',
      ),
    ).toBe(false);
    // An edit's own new text is in view even when the read before it is gone.
    expect(
      currentTexts(view([...read('r1', projected), ...edit('e1', 'return a - b;', 'return a + b;')]), 'src/math.js'),
    ).toEqual(['return a + b;']);
  });

  it('reads the WORKING_SET section: each file block with its "| " prefix stripped, later edits applied', () => {
    const files = workingSetFiles(view([], WORKING_SET));
    expect([...files.keys()]).toEqual(['src/math.js']);
    expect(files.get('src/math.js')).toBe('export function add(a, b) {\n  return a - b;\n}\n\n[DIGEST]');
    expect(textInView(view([], WORKING_SET), 'src/math.js', 'add(a, b) {\n  return a - b;')).toBe(true);
    expect(
      textInView(view(edit('e1', 'return a - b;', 'return a + b;'), WORKING_SET), 'src/math.js', 'return a - b;'),
    ).toBe(false);
    expect(textInView(view([], WORKING_SET.replace('[WORKING_SET]', '[NOTES]')), 'src/math.js', 'return a - b;')).toBe(
      false,
    );
  });

  it('finds a quoted passage only in tool output, checkpoint lines or the working set, never in prose', () => {
    const passage = 'AssertionError: expected add(2, 3) to be 5, received -1';
    const test = exchange(
      't1',
      'run_command',
      { argv: ['pnpm', 'test'] },
      `FAIL test/math.test.js\n${passage}\n[exit code 1 after 1 ms]`,
    );
    expect(passageInView(view(test), passage)).toBe(true);
    const prose: Message[] = [{ role: 'assistant', content: [{ type: 'text', text: `The test says: ${passage}` }] }];
    expect(passageInView(view(prose), passage)).toBe(false);
    expect(passageInView(view([], `[DIGEST]\n- #3 tool run_command: ${passage}`), passage)).toBe(true);
    expect(passageInView(view([], WORKING_SET), 'export function add(a, b) {')).toBe(true);
  });

  it('never mistakes a file line for a section header, whatever the file holds', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: fc.constantFrom('a', ' ', '[', ']', 'T', 'K', '|', '_') }), {
          minLength: 1,
          maxLength: 8,
        }),
        (lines) => {
          const block = lines.map((line) => (line.length === 0 ? '|' : `| ${line}`)).join('\n');
          const files = workingSetFiles(
            view([], `[WORKING_SET]\n- file:a.txt sha256 abcdef012345, whole file, ${lines.length} lines\n${block}`),
          );
          expect(files.get('a.txt')).toBe(lines.join('\n'));
        },
      ),
    );
  });
});
