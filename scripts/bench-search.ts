/*
 * What running regular expressions off the main thread costs `search`: the same workspace (800
 * files of 200 lines) searched for literal text (matched in place) and for a regular expression
 * (matched in the worker thread, which is kept between searches), the first regular-expression
 * search of a tool (which starts the worker) measured apart. Prints medians and the ratios.
 *
 *   npx tsx --conditions=@forge/source scripts/bench-search.ts
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createSearchTool } from '@forge/tools';
import { median } from './bench-support.js';

const FILES = 800;
const LINES = 200;
const RUNS = 9;

const root = await mkdtemp(path.join(tmpdir(), 'forge-bench-search-'));
try {
  for (let file = 0; file < FILES; file += 1) {
    const directory = path.join(root, `pkg-${file % 20}`);
    await mkdir(directory, { recursive: true });
    const lines = Array.from({ length: LINES }, (_, line) =>
      line === 100 && file % 7 === 0
        ? `export const needle${file} = ${line};`
        : `export const value${line} = ${file} + ${line};`,
    );
    await writeFile(path.join(directory, `module-${file}.ts`), `${lines.join('\n')}\n`);
  }
  const signal = new AbortController().signal;
  const search = async (tool: ReturnType<typeof createSearchTool>, input: { pattern: string; regex?: boolean }) => {
    const started = performance.now();
    await tool.execute({ ...input, maxMatches: 2000 }, { toolCallId: 'bench', signal });
    return performance.now() - started;
  };

  const cold: number[] = [];
  for (let run = 0; run < RUNS; run += 1)
    cold.push(await search(createSearchTool({ root }), { pattern: 'needle\\d+ =', regex: true }));
  const tool = createSearchTool({ root });
  const literal: number[] = [];
  const regex: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    literal.push(await search(tool, { pattern: 'needle' }));
    regex.push(await search(tool, { pattern: 'needle\\d+ =', regex: true }));
  }
  const [literalMs, regexMs, coldMs] = [median(literal), median(regex), median(cold)];
  console.log(`search over ${FILES} files × ${LINES} lines, median of ${RUNS}`);
  console.log(`  literal text (in place)                       ${literalMs.toFixed(1)} ms`);
  console.log(
    `  regular expression (worker kept)              ${regexMs.toFixed(1)} ms   ${(regexMs / literalMs).toFixed(2)}× literal`,
  );
  console.log(
    `  first regular expression of a tool (starts it) ${coldMs.toFixed(1)} ms   ${(coldMs / literalMs).toFixed(2)}× literal`,
  );
} finally {
  await rm(root, { recursive: true, force: true });
}
