#!/usr/bin/env node
// The long variant of the reliability suites: ≥ 200 SIGKILLs, ≥ 100 000 fuzz cases per target,
// the whole secret and injection corpora. Runs vitest with FORGE_LONG=1 and prints every
// suite's counts at the end. Extra arguments go to vitest (e.g. a file filter: src/fuzz).
//
//   npx -y pnpm@12.4.2 --filter @forge/reliability-tests long
//   FORGE_RELIABILITY_SEED=7 node tests/reliability/scripts/run-long.mjs src/crash
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDirectory = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const root = resolve(packageDirectory, '..', '..');
const scratch = mkdtempSync(join(tmpdir(), 'forge-reliability-long-'));
const countsFile = join(scratch, 'counts.jsonl');
const filters = process.argv.slice(2).map((filter) => join('tests', 'reliability', filter));
const started = Date.now();

const result = spawnSync('npx', ['vitest', 'run', ...(filters.length === 0 ? ['tests/reliability'] : filters)], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, FORGE_LONG: '1', FORGE_RELIABILITY_COUNTS: countsFile },
});

let lines = [];
try {
  lines = readFileSync(countsFile, 'utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line));
} catch {
  lines = [];
}
rmSync(scratch, { recursive: true, force: true });

console.log(
  `\nReliability long run: ${lines.length} suite reports in ${Math.round((Date.now() - started) / 1000)} s (seed ${lines[0]?.seed ?? 'default'})`,
);
for (const { suite, counts } of lines.sort((left, right) => left.suite.localeCompare(right.suite))) {
  console.log(
    `  ${suite.padEnd(32)} ${Object.entries(counts)
      .map(([name, value]) => `${name}=${value}`)
      .join('  ')}`,
  );
}
process.exit(result.status ?? 1);
