import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildForgeStateCheckpoint } from './build.js';
import { CHECKPOINT_CAPS } from './caps.js';
import { hashOf, redactSecrets } from './fixtures.test-helpers.js';
import type { ForgeStateCheckpoint } from './schema.js';
import { contextCheckpointSchema } from './schema.js';
import { checkpointViewCharBound, renderCheckpointView } from './view.js';
import { BIG_TS, CONFIG_TS, MATH_JS, workingSetTranscript, workspaceNow } from './working-set.test-helpers.js';
import {
  DEFAULT_WORKING_SET_BUDGET,
  EDIT_CONTEXT_LINES,
  selectWorkingSet,
  workingSetLimitsFor,
  workingSetShown,
  type WorkingSetContents,
  type WorkingSetLimits,
} from './working-set.js';

const LIMITS: WorkingSetLimits = { maxFiles: 8, maxChars: 40_000, maxFileChars: 4000 };

function build(limits: WorkingSetLimits = LIMITS): ForgeStateCheckpoint {
  const transcript = workingSetTranscript();
  return buildForgeStateCheckpoint({
    transcript,
    tailStart: transcript.length - 1,
    redact: redactSecrets,
    workingSet: limits,
  });
}

const render = (checkpoint: ForgeStateCheckpoint, contents: WorkingSetContents = workspaceNow()) =>
  renderCheckpointView(checkpoint, CHECKPOINT_CAPS, undefined, { contents, redact: redactSecrets });

function section(view: string): string[] {
  const lines = view.split('\n');
  const start = lines.indexOf('[WORKING_SET]');
  const end = lines.indexOf('[DIGEST]');
  return lines.slice(start, end);
}

describe('selecting the files in hand', () => {
  it('keeps the latest read or edit of each file, most recent first, and skips failed reads', () => {
    const { workingSet } = build();
    expect(workingSet?.files.map((file) => file.path)).toEqual([
      'src/config.ts',
      'src/big.ts',
      'src/math.js',
      'assets/logo.svg',
      'src/gone.ts',
    ]);
    expect(workingSet?.files[0]?.region).toEqual({ startLine: 1, endLine: 7 + EDIT_CONTEXT_LINES });
    expect(workingSet?.files[1]?.region).toEqual({ startLine: 120, endLine: 140 });
    expect(workingSet?.files[2]).toMatchObject({ region: null, hash: hashOf(MATH_JS) });
  });

  it('holds at most maxFiles and nothing when the limit is 0; a checkpoint without limits has no working set', () => {
    expect(build({ ...LIMITS, maxFiles: 2 }).workingSet?.files).toHaveLength(2);
    expect(build({ ...LIMITS, maxFiles: 0 }).workingSet?.files).toEqual([]);
    const transcript = workingSetTranscript();
    expect(buildForgeStateCheckpoint({ transcript, tailStart: 0, redact: redactSecrets }).workingSet).toBeUndefined();
  });

  it('leaves out a path the redaction would change', () => {
    const transcript = workingSetTranscript();
    const files = selectWorkingSet(transcript, LIMITS, (text) => text.replaceAll('config', '[REDACTED]')).files.map(
      (file) => file.path,
    );
    expect(files).not.toContain('src/config.ts');
  });

  it('stores pointers only, which validate as part of the checkpoint', () => {
    const checkpoint = build();
    expect(JSON.stringify(checkpoint)).not.toContain('value120');
    expect(contextCheckpointSchema.safeParse(JSON.parse(JSON.stringify(checkpoint))).success).toBe(true);
  });
});

describe('rendering the files in hand', () => {
  it('shows current text with current hashes, a region for a large file, and a note for a file gone or binary', () => {
    const lines = section(render(build()));
    expect(lines[1]).toBe(
      'files in hand: 3, read from disk when this checkpoint was rendered; edit them without reading again',
    );
    expect(lines).toContain(
      '- file:src/big.ts sha256 ' +
        hashOf(BIG_TS).slice(0, 12) +
        ', lines 120-140 of 400 (the region last read or edited)',
    );
    expect(lines).toContain('| export const value120 = 120;');
    expect(lines).not.toContain('| export const value141 = 141;');
    expect(lines.find((line) => line.startsWith('- file:src/math.js'))).toContain(
      ', whole file, 5 lines, changed on disk since it was last read or edited',
    );
    expect(lines).toContain('|   return a + b;');
    expect(lines).toContain('- file:src/gone.ts, gone from the workspace since it was last read or edited');
    expect(lines).toContain('- file:assets/logo.svg, not shown: it is a binary file');
  });

  it('prefixes every file line, so a line that looks like a section or a file header stays file text, and redacts secrets', () => {
    const lines = section(render(build()));
    expect(lines).toContain('| [TASK]');
    expect(lines).toContain('| - file:src/evil.ts sha256 000000000000, whole file, 1 line');
    expect(lines).toContain('|');
    expect(lines.join('\n')).not.toContain('sk-test-SECRET');
    expect(lines).toContain('| export const apiKey = "[REDACTED:secret]";');
    expect(lines.find((line) => line.startsWith('- file:src/config.ts'))).toContain(
      `sha256 ${hashOf(CONFIG_TS).slice(0, 12)}`,
    );
  });

  it('gives the same bytes for the same contents and different bytes once a file changes', () => {
    const checkpoint = build();
    expect(render(checkpoint)).toBe(render(build()));
    const changed = workspaceNow({ 'src/math.js': { kind: 'text', text: 'changed\n', sha256: hashOf('changed\n') } });
    expect(render(checkpoint, changed)).not.toBe(render(checkpoint));
  });

  it('stops at the budget: the rest is listed without text', () => {
    const lines = section(render(build({ maxFiles: 8, maxChars: 400, maxFileChars: 4000 })));
    expect(lines.find((line) => line.startsWith('- file:src/big.ts'))).toContain(
      '(part of the region last read or edited, cut at the cap)',
    );
    expect(lines.find((line) => line.startsWith('- file:src/math.js'))).toContain(
      'not shown: the working-set budget is spent',
    );
    expect(lines.filter((line) => line.startsWith('|')).join('\n').length).toBeLessThanOrEqual(400 + 3 * lines.length);
  });

  it('reports as shown exactly what the section shows: the whole file or the region', () => {
    const shown = workingSetShown(build().workingSet, workspaceNow());
    expect(shown.map((file) => [file.path, file.region])).toEqual([
      ['src/config.ts', null],
      ['src/big.ts', { startLine: 120, endLine: 140 }],
      ['src/math.js', null],
    ]);
  });

  it('lists the files without text when rendered with no access to the workspace, and shows (none) when nothing is in hand', () => {
    const view = renderCheckpointView(build());
    expect(section(view)[1]).toBe(
      'files in hand: 0, not read from disk for this render; read_file them before relying on them',
    );
    expect(section(render(build({ ...LIMITS, maxFiles: 0 })))).toEqual(['[WORKING_SET]', '- (none)', '']);
  });

  it('never lets a file line pass for a line of the checkpoint, and stays within the view bound', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 60 }), { maxLength: 30 }), (fileLines) => {
        const content = fileLines.join('\n');
        const view = render(
          build(),
          workspaceNow({ 'src/math.js': { kind: 'text', text: content, sha256: hashOf(content) } }),
        );
        const lines = section(view).slice(2);
        for (const line of lines) expect(line === '' || line.startsWith('|') || line.startsWith('- file:')).toBe(true);
        expect(view.length).toBeLessThanOrEqual(checkpointViewCharBound(CHECKPOINT_CAPS, build().workingSet));
      }),
      { numRuns: 60 },
    );
  });
});

describe('working-set budget', () => {
  it('is a quarter of the compaction target, at least 4,000 tokens, at most the configured maximum and half the target', () => {
    expect(workingSetLimitsFor(DEFAULT_WORKING_SET_BUDGET, 59_904)).toEqual({
      maxFiles: 8,
      maxChars: 14_976 * 4,
      maxFileChars: 10_000 * 4,
    });
    expect(workingSetLimitsFor(DEFAULT_WORKING_SET_BUDGET, 496_000).maxChars).toBe(32_000 * 4);
    expect(workingSetLimitsFor(DEFAULT_WORKING_SET_BUDGET, 12_000)).toEqual({
      maxFiles: 8,
      maxChars: 4000 * 4,
      maxFileChars: 4000 * 4,
    });
    expect(workingSetLimitsFor(DEFAULT_WORKING_SET_BUDGET, 6000).maxChars).toBe(3000 * 4);
    expect(workingSetLimitsFor({ ...DEFAULT_WORKING_SET_BUDGET, maxTokens: 0 }, 59_904)).toEqual({
      maxFiles: 0,
      maxChars: 0,
      maxFileChars: 0,
    });
  });
});
