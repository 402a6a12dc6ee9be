// Measures start-up work that grows with what a user has accumulated (issue 33): resume, context,
// listing, checkpoint show and inspect on large generated homes, through the bundled binary, each
// against `forge --version` in the same run. A measurement, not a test. Build first (pnpm build).
//   npx tsx --conditions=@forge/source scripts/bench-scale.ts [repeats] [--keep DIR] [--reuse DIR] [--chromium]
//     [--only WORD,…]  (only the scenarios whose operation contains one of the words, and only their data)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format, median } from './bench-support.js';
import { generateSession } from './bench-scale-data.js';

const argv = process.argv.slice(2);
const flagValue = (name: string): string | undefined => {
  const at = argv.indexOf(name);
  return at === -1 ? undefined : argv[at + 1];
};
const repeats = Number(argv.find((value) => /^\d+$/.test(value)) ?? 3);
const repository = join(dirname(fileURLToPath(import.meta.url)), '..');
/** `--forge FILE` measures another build (a copy of apps/cli/bin and dist made before a change). */
const forgeBin = resolve(flagValue('--forge') ?? join(repository, 'apps', 'cli', 'bin', 'forge.js'));
const onlyWords = flagValue('--only')
  ?.split(',')
  .map((word) => word.trim())
  .filter((word) => word !== '');

interface Measurement {
  readonly seconds: number;
  /** User plus system CPU time: steadier than wall time on a shared machine. */
  readonly cpuSeconds: number;
  readonly rssMegabytes: number;
}

interface Scenario {
  readonly operation: string;
  readonly size: string;
  readonly home: string;
  readonly cwd: string;
  readonly args: readonly string[];
  readonly stdin?: string;
  /** Done-when bound: seconds over start-up (`overStartup`) or absolute seconds, and peak RSS in MB. */
  readonly target: { readonly overStartup?: number; readonly seconds?: number; readonly rssMegabytes?: number };
  readonly after?: (home: string) => string;
}

const reportUsage =
  "process.on('exit',()=>{const u=process.resourceUsage();process.stderr.write('\\nBENCH_USAGE='+u.maxRSS+','+(u.userCPUTime+u.systemCPUTime)+'\\n')})";

function runOnce(scenario: Pick<Scenario, 'home' | 'cwd' | 'args' | 'stdin'>): Promise<Measurement> {
  const started = process.hrtime.bigint();
  const child = spawn(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(reportUsage)}`, forgeBin, ...scenario.args],
    {
      cwd: scenario.cwd,
      env: { ...process.env, FORGE_HOME: scenario.home, NO_COLOR: '1', FORGE_CONTEXT_MODE: 'compact' },
      stdio: ['pipe', 'ignore', 'pipe'],
    },
  );
  child.stdin.end(scenario.stdin ?? '');
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const usage = /BENCH_USAGE=(\d+),(\d+)/.exec(stderr);
      if (code !== 0 || usage === null) {
        reject(new Error(`forge ${scenario.args.join(' ')} exited ${String(code)}: ${stderr.slice(-2000)}`));
        return;
      }
      resolve({ seconds, cpuSeconds: Number(usage[2]) / 1e6, rssMegabytes: Number(usage[1]) / 1024 });
    });
  });
}

async function measure(scenario: Pick<Scenario, 'home' | 'cwd' | 'args' | 'stdin'>): Promise<Measurement> {
  const samples: Measurement[] = [];
  for (let index = 0; index < repeats; index += 1) samples.push(await runOnce(scenario));
  return {
    seconds: median(samples.map((sample) => sample.seconds)),
    cpuSeconds: median(samples.map((sample) => sample.cpuSeconds)),
    rssMegabytes: Math.max(...samples.map((sample) => sample.rssMegabytes)),
  };
}

function workspace(root: string, name: string): string {
  const directory = join(root, name);
  mkdirSync(join(directory, 'src'), { recursive: true });
  writeFileSync(join(directory, 'src', 'a.ts'), 'export const a = 1;\n');
  spawnSync('git', ['init', '-q', directory]);
  return directory;
}

/** Builds the homes of every scenario under `root` (about 1.2 GB of files, a minute or two), or of those `needed`. */
function generate(root: string, needed: ReadonlySet<string>): void {
  const homes: Record<string, string> = {
    'a 10,000-turn session with a trace per run': 'turns',
    'a 200 MB session': 'large',
    '5,000 sessions': 'many',
    'a session of 1,000 runs with traces': 'runs',
  };
  const time = (label: string, work: () => void) => {
    if (!needed.has(homes[label] ?? '')) return;
    const started = Date.now();
    work();
    console.log(`  generated ${label} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  };
  time('a 10,000-turn session with a trace per run', () =>
    generateSession({
      home: join(root, 'turns'),
      workspace: workspace(root, 'ws-turns'),
      index: 1,
      turns: 10_000,
      outputBytes: 600,
      checkpointEvery: 500,
      traces: true,
    }),
  );
  time('a 200 MB session', () =>
    generateSession({
      home: join(root, 'large'),
      workspace: workspace(root, 'ws-large'),
      index: 2,
      turns: 2_000,
      outputBytes: 100_000,
      checkpointEvery: 400,
      traces: false,
    }),
  );
  time('5,000 sessions', () => {
    const many = workspace(root, 'ws-many');
    for (let index = 0; index < 5_000; index += 1)
      generateSession({
        home: join(root, 'many'),
        workspace: many,
        index: 10 + index,
        turns: 3,
        outputBytes: 2_000,
        traces: false,
      });
  });
  time('a session of 1,000 runs with traces', () => {
    const session = generateSession({
      home: join(root, 'runs'),
      workspace: workspace(root, 'ws-runs'),
      index: 3,
      turns: 1_000,
      outputBytes: 400,
      checkpointEvery: 200,
      traces: true,
    });
    writeFileSync(join(root, 'runs', 'session-id'), session.id);
  });
}

function scenarios(root: string): Scenario[] {
  return allScenarios(root).filter(
    (scenario) => onlyWords === undefined || onlyWords.some((word) => scenario.operation.includes(word)),
  );
}

function allScenarios(root: string): Scenario[] {
  const model = ['--model', 'scripted:demo'];
  const at = (name: string) => ({ home: join(root, name), cwd: join(root, `ws-${name}`) });
  const inspectedSession = (): string =>
    spawnSync('cat', [join(root, 'runs', 'session-id')])
      .stdout.toString()
      .trim();
  return [
    {
      operation: '`forge context --last`',
      size: '10,000 turns with traces',
      ...at('turns'),
      args: ['context', '--last', ...model],
      target: { overStartup: 0.5 },
    },
    {
      operation: '`forge --last` (REPL)',
      size: '10,000 turns with traces',
      ...at('turns'),
      args: ['--last', ...model],
      stdin: '/exit\n',
      target: { overStartup: 0.5 },
    },
    {
      operation: '`forge run --last`',
      size: '200 MB session',
      ...at('large'),
      args: ['run', '--last', ...model, 'Summarise the workspace'],
      target: { seconds: 2, rssMegabytes: 300 },
    },
    {
      operation: '`forge --last` (REPL)',
      size: '200 MB session',
      ...at('large'),
      args: ['--last', ...model],
      stdin: '/exit\n',
      target: {},
    },
    {
      operation: '`forge sessions list`',
      size: '5,000 sessions',
      ...at('many'),
      args: ['sessions', 'list'],
      target: { overStartup: 0.5 },
    },
    {
      operation: '`forge run --last`',
      size: '5,000 sessions',
      ...at('many'),
      args: ['run', '--last', ...model, 'Summarise the workspace'],
      target: {},
    },
    {
      operation: '`forge checkpoint show --last`',
      size: '10,000 turns',
      ...at('turns'),
      args: ['checkpoint', 'show', '--last'],
      target: { overStartup: 0.3 },
    },
    {
      operation: '`forge inspect <session>`',
      size: '1,000 runs',
      ...at('runs'),
      get args() {
        return ['inspect', inspectedSession()];
      },
      target: { seconds: 1 },
    },
    {
      // Every run in full: reads every trace whole, so it is not held to the summary's bound.
      operation: '`forge inspect <session> --json`',
      size: '1,000 runs',
      ...at('runs'),
      get args() {
        return ['inspect', inspectedSession(), '--json'];
      },
      target: {},
    },
    {
      operation: '`forge inspect <session> --html`',
      size: '1,000 runs',
      ...at('runs'),
      get args() {
        return ['inspect', inspectedSession(), '--html', join(root, 'inspect.html')];
      },
      target: { seconds: 1 },
      after: () => `HTML ${format(statSync(join(root, 'inspect.html')).size / 1024 / 1024, 2)} MB`,
    },
  ];
}

/** Seconds Chromium takes to load and render a page (headless, one screenshot). */
function chromiumLoad(page: string): number | undefined {
  const binary = ['chromium', 'chromium-browser'].find((name) => spawnSync('which', [name]).status === 0);
  if (binary === undefined) return undefined;
  const started = Date.now();
  spawnSync(binary, ['--headless', '--no-sandbox', '--disable-gpu', `--screenshot=${page}.png`, `file://${page}`], {
    stdio: 'ignore',
    timeout: 60_000,
  });
  return (Date.now() - started) / 1000;
}

async function main(): Promise<void> {
  if (!existsSync(join(repository, 'apps', 'cli', 'dist', 'main.js'))) {
    console.error('bench-scale: apps/cli/dist/main.js is missing; build first with `npx -y pnpm@12.4.2 run build`.');
    process.exit(1);
  }
  const reuse = flagValue('--reuse');
  const root = reuse ?? flagValue('--keep') ?? (await mkdtemp(join(tmpdir(), 'forge-bench-scale-')));
  try {
    if (reuse === undefined) {
      console.log(`generating in ${root} …`);
      generate(root, new Set(scenarios(root).map((scenario) => basename(scenario.home))));
    }
    const empty = join(root, 'empty-home');
    mkdirSync(empty, { recursive: true });
    const startup = await measure({ home: empty, cwd: root, args: ['--version'] });
    console.log(
      `\nstart-up (\`forge --version\`): ${startup.seconds.toFixed(2)} s (CPU ${startup.cpuSeconds.toFixed(2)} s), ${startup.rssMegabytes.toFixed(0)} MB`,
    );
    console.log(`median of ${repeats} runs, peak RSS the largest of them\n`);
    console.log('| operation | size | time | over start-up | CPU | peak RSS | target | note |');
    console.log('|---|---|---|---|---|---|---|---|');
    for (const scenario of scenarios(root)) {
      // A resumed run appends one small turn to its session, so repeats stay comparable.
      const result = await measure(scenario).catch((error: unknown) => error as Error);
      if (result instanceof Error) {
        console.log(
          `| ${scenario.operation} | ${scenario.size} | failed | | | | | ${result.message.split('\n')[0]?.slice(0, 200)} |`,
        );
        continue;
      }
      const over = result.seconds - startup.seconds;
      const { target } = scenario;
      const bound = [
        target.overStartup === undefined ? '' : `≤ +${target.overStartup} s`,
        target.seconds === undefined ? '' : `≤ ${target.seconds} s`,
        target.rssMegabytes === undefined ? '' : `≤ ${target.rssMegabytes} MB`,
      ]
        .filter((text) => text !== '')
        .join(', ');
      const holds =
        (target.overStartup === undefined || over <= target.overStartup) &&
        (target.seconds === undefined || result.seconds <= target.seconds) &&
        (target.rssMegabytes === undefined || result.rssMegabytes <= target.rssMegabytes);
      let note = scenario.after?.(scenario.home) ?? '';
      if (scenario.after !== undefined && argv.includes('--chromium')) {
        const load = chromiumLoad(join(root, 'inspect.html'));
        if (load !== undefined) note += `; Chromium load ${load.toFixed(1)} s`;
      }
      console.log(
        `| ${scenario.operation} | ${scenario.size} | ${result.seconds.toFixed(2)} s | +${over.toFixed(2)} s | ${result.cpuSeconds.toFixed(2)} s | ${result.rssMegabytes.toFixed(0)} MB | ${bound === '' ? '—' : `${bound} ${holds ? 'holds' : 'misses'}`} | ${note} |`,
      );
    }
  } finally {
    if (reuse === undefined && flagValue('--keep') === undefined) await rm(root, { recursive: true, force: true });
  }
}

await main();
