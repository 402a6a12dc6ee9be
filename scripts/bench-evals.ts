/*
 * What an eval suite costs to run: each fixture of the suite in every mode (and for every agent
 * asked for), one fixture at a time, with the CPU time this process spent on it (user + system)
 * and the wall time. CPU time is what a two-core machine has twice of per second, so the suite
 * fits the four-minute budget on two cores when the total CPU time stays under 480 s (and under
 * 240 s if a single core has to do everything). The machine is shared: compare CPU times, not walls.
 *
 *   npx tsx --conditions=@forge/source scripts/bench-evals.ts [suite] [agent,...|all]
 */
import { performance } from 'node:perf_hooks';
import { loadSuite, MODE_RUNNERS, parseAgentNames, runEval, SUITE_NAMES, type SuiteName } from '@forge/evals';
import { median } from './bench-support.js';

const suite = (process.argv[2] ?? 'realistic') as SuiteName;
if (!SUITE_NAMES.includes(suite)) throw new Error(`unknown suite ${suite}; choose from ${SUITE_NAMES.join(', ')}`);
const agents = parseAgentNames(process.argv[3]);
const TWO_CORE_BUDGET_SECONDS = 2 * 240;

const fixtures = await loadSuite(suite);
const rows: { id: string; cpu: number; wall: number; runs: number }[] = [];
for (const fixture of fixtures) {
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const report = await runEval({ fixtures: [fixture], modes: MODE_RUNNERS, agents, source: `bench ${suite}` });
  const cpu = process.cpuUsage(cpuBefore);
  rows.push({
    id: fixture.fixture.id,
    cpu: (cpu.user + cpu.system) / 1e6,
    wall: (performance.now() - wallBefore) / 1000,
    runs: report.results.length,
  });
  if (report.errors.length > 0)
    process.stderr.write(
      `${fixture.fixture.id}: ${report.errors.map((error) => `${error.mode}: ${error.message}`).join('; ')}\n`,
    );
}

const width = Math.max(...rows.map((row) => row.id.length));
process.stdout.write(`forge eval cost — suite ${suite}, agents ${agents.join(', ')}, ${MODE_RUNNERS.length} modes\n\n`);
process.stdout.write(`${'fixture'.padEnd(width)}  runs  cpu s  wall s\n`);
for (const row of rows)
  process.stdout.write(
    `${row.id.padEnd(width)}  ${String(row.runs).padStart(4)}  ${row.cpu.toFixed(1).padStart(5)}  ${row.wall.toFixed(1).padStart(6)}\n`,
  );
const cpu = rows.reduce((total, row) => total + row.cpu, 0);
const wall = rows.reduce((total, row) => total + row.wall, 0);
process.stdout.write(
  `\ntotal cpu ${cpu.toFixed(1)} s (median per fixture ${median(rows.map((row) => row.cpu)).toFixed(1)} s), wall ${wall.toFixed(1)} s\n`,
);
process.stdout.write(
  `cpu / two-core budget (${TWO_CORE_BUDGET_SECONDS} s): ${(cpu / TWO_CORE_BUDGET_SECONDS).toFixed(2)}; cpu / one-core budget (240 s): ${(cpu / 240).toFixed(2)}\n`,
);
