// A long check that CI runs (.ci/run), outside the default suite: a session of about 1 GB — the
// size a large `forge import codex --session` makes, with its import checkpoint — resumes with
// `forge run --last` through the bundled binary in mode compact within 300 MB of memory: resume reads
// the checkpoint's window, not the log (issues 30 and 33). Build first.
//   npx tsx --conditions=@forge/source scripts/long-resume-1gb.ts [megabytes]
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateSession } from './bench-scale-data.js';

const megabytes = Number(process.argv[2] ?? 1024);
const LIMIT_MB = 300;
const forgeBin = join(dirname(fileURLToPath(import.meta.url)), '..', 'apps', 'cli', 'bin', 'forge.js');
const root = mkdtempSync(join(tmpdir(), 'forge-long-resume-'));
const reportUsage =
  "process.on('exit',()=>{const u=process.resourceUsage();process.stderr.write('\\nBENCH_USAGE='+u.maxRSS+'\\n')})";

function main(): boolean {
  const workspace = join(root, 'workspace');
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'a.txt'), 'alpha\n');
  const home = join(root, 'home');
  const outputBytes = 100_000;
  const session = generateSession({
    home,
    workspace,
    index: 1,
    turns: Math.ceil((megabytes * 1024 * 1024) / (outputBytes + 1200)),
    outputBytes,
    checkpointEvery: 1000,
    traces: false,
  });
  const log = join(home, 'sessions', session.id, 'session.jsonl');
  console.log(`a session of ${(statSync(log).size / 1024 / 1024).toFixed(0)} MB: ${log}`);
  const started = Date.now();
  const run = spawnSync(
    process.execPath,
    [
      '--import',
      `data:text/javascript,${encodeURIComponent(reportUsage)}`,
      forgeBin,
      'run',
      '--last',
      '--model',
      'scripted:demo',
      'Summarise the workspace',
    ],
    { cwd: workspace, env: { ...process.env, FORGE_HOME: home, NO_COLOR: '1' }, encoding: 'utf8', maxBuffer: 64 << 20 },
  );
  const rss = Number(/BENCH_USAGE=(\d+)/.exec(run.stderr)?.[1] ?? Number.NaN) / 1024;
  console.log(
    `forge run --last: exit ${String(run.status)}, ${((Date.now() - started) / 1000).toFixed(1)} s, peak RSS ${rss.toFixed(0)} MB`,
  );
  if (run.status !== 0) console.log(run.stderr.slice(-3000));
  return run.status === 0 && rss <= LIMIT_MB;
}

let ok = false;
try {
  ok = main();
} finally {
  rmSync(root, { recursive: true, force: true });
}
console.log(`long-resume: ${ok ? 1 : 0} passed, ${ok ? 0 : 1} failed`);
process.exitCode = ok ? 0 : 1;
