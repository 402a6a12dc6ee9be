// Measures how long `forge --help` takes to start, against bare `node -e 0`. A measurement, not a
// test: it fails only when the built binary is missing. Usage: node scripts/bench-startup.mjs [runs]
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const runs = Number(process.argv[2] ?? 15);
const warmUps = 2;
const target = 250;
const bin = fileURLToPath(new URL('../apps/cli/bin/forge.js', import.meta.url));
const bundle = fileURLToPath(new URL('../apps/cli/dist/main.js', import.meta.url));

if (!existsSync(bundle)) {
  console.error(
    'bench-startup: apps/cli/dist/main.js is missing; build first with `pnpm build` (or `node build.mjs` in apps/cli).',
  );
  process.exit(1);
}

/** Wall-clock milliseconds of each of `runs` executions of node with `args`, after warm-ups. */
function time(args) {
  const samples = [];
  for (let index = 0; index < warmUps + runs; index += 1) {
    const started = process.hrtime.bigint();
    const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
    if (result.status !== 0) {
      console.error(`bench-startup: node ${args.join(' ')} exited ${result.status}:\n${result.stderr}`);
      process.exit(1);
    }
    if (index >= warmUps) samples.push(elapsed);
  }
  return samples.sort((left, right) => left - right);
}

function percentile(sorted, fraction) {
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
}

const bare = time(['-e', '0']);
const help = time([bin, '--help']);
const bareMedian = percentile(bare, 0.5);
const helpMedian = percentile(help, 0.5);

console.log(`forge --help startup, ${runs} runs after ${warmUps} warm-ups (Node ${process.version})`);
console.log(`  node -e 0      median ${bareMedian.toFixed(1)} ms   p90 ${percentile(bare, 0.9).toFixed(1)} ms`);
console.log(`  forge --help   median ${helpMedian.toFixed(1)} ms   p90 ${percentile(help, 0.9).toFixed(1)} ms`);
console.log(
  `  ratio          ${(helpMedian / bareMedian).toFixed(2)}× bare node; target ≤ ${target} ms median: ${helpMedian <= target ? 'met' : 'NOT met'}`,
);
