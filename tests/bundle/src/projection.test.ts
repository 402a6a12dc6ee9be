import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionIdOf, useBundle, userSetup } from './support/bundle.js';

/*
 * Issue 26's headline session through the bundled binary: twelve turns of `forge run` in mode
 * `compact` (the default), each reading one distinct source file of about 9,000 tokens. The model
 * is `scripted:file`, whose window is 128,000 tokens: 119,808 for input, a compaction target of
 * 59,904 (its estimator counts four characters a token). When the session passes the compaction
 * threshold, projection may take the oldest reads only until the request is under the target, so
 * the request keeps most of the files verbatim; before issue 26 it kept 3,916 tokens.
 */

const fixture = useBundle('bundle-projection');

const TURNS = 12;
const TARGET_TOKENS = 59_904;

/** About `tokens` tokens of source text (four characters a token), different for every file. */
function source(index: number, tokens: number): string {
  const lines: string[] = [];
  for (let line = 0; lines.length * 40 < tokens * 4; line += 1)
    lines.push(`export const value${index}_${line} = ${index * 1000 + line};`.padEnd(39, ' '));
  return `${lines.join('\n')}\n`;
}

interface InspectedCompaction {
  readonly outcome: string;
  readonly strategy?: string;
  readonly tokensBefore?: number;
  readonly tokensAfter?: number;
  readonly keptVerbatimTokens?: number;
}

describe('the bundled forge projecting a session of distinct large reads (128k window)', () => {
  it('keeps at least 60 % of the compaction target verbatim after the first projection or compaction', async () => {
    const user = await userSetup(fixture, 'projection');
    for (let index = 1; index <= TURNS; index += 1)
      await writeFile(path.join(user.workspace, `module-${index}.ts`), source(index, 9_000));

    let sessionId: string | undefined;
    let first: { readonly turn: number; readonly compaction: InspectedCompaction } | undefined;
    for (let turn = 1; turn <= TURNS && first === undefined; turn += 1) {
      // Each process numbers the scripted model's calls from 1, so every turn names its call as a provider would: uniquely.
      const script = await user.writeModelScript([
        { toolCalls: [{ toolName: 'read_file', toolCallId: `read_${turn}`, input: { path: `module-${turn}.ts` } }] },
        { text: `Read module ${turn}.` },
      ]);
      const resume = sessionId === undefined ? [] : ['--resume', sessionId];
      const run = await user.forge(
        ['run', '--model', 'scripted:file', ...resume, `Read module-${turn}.ts and tell me what it exports.`],
        script,
      );
      expect(run.stderr).not.toContain('forge: error');
      expect(run.code).toBe(0);
      sessionId ??= sessionIdOf(run.stderr);

      // What a user looks at: the run's report.
      const inspected = await user.forge(['inspect', '--last', '--json']);
      expect(inspected.code).toBe(0);
      const report = JSON.parse(inspected.stdout) as { runs: { compactions: InspectedCompaction[] }[] };
      const made = report.runs[0]?.compactions.find((compaction) => compaction.outcome === 'completed');
      if (made !== undefined) first = { turn, compaction: made };
    }

    expect(first, 'the session never passed its compaction threshold').toBeDefined();
    const { compaction } = first as { readonly compaction: InspectedCompaction };
    expect(compaction.strategy).toBe('tool-output-projection');
    expect(compaction.tokensBefore).toBeGreaterThan(0.85 * 119_808);
    expect(compaction.tokensAfter).toBeLessThanOrEqual(TARGET_TOKENS);
    expect(compaction.keptVerbatimTokens).toBeGreaterThanOrEqual(Math.ceil(0.6 * TARGET_TOKENS));
  }, 300_000);
});
