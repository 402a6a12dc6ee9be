// Measures `forge inspect <trace> --json` on a generated ~100 MB trace: wall time and peak RSS of
// the spawned CLI (built with esbuild first), median of several runs. Targets: ≤ 3 s, ≤ 200 MB.
// A measurement, not a test. Usage:
//   npx tsx --conditions=@forge/source scripts/bench-inspect.ts [megabytes] [repeats]
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './bench-support.js';

const targetMegabytes = Number(process.argv[2] ?? 100);
const repeats = Number(process.argv[3] ?? 5);
const TARGET_SECONDS = 3;
const TARGET_RSS_MB = 200;
const repository = join(dirname(fileURLToPath(import.meta.url)), '..');
const cliDirectory = join(repository, 'apps', 'cli');
const runId = 'run_bench_inspect';

const TOOLS = ['read_file', 'search', 'edit_file', 'run_command', 'list_files'];
const OUTCOMES = ['ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'error', 'ok', 'denied', 'ok'];

/**
 * Writes a trace of one long agent run (as many steps as a few hundred ordinary runs) shaped like
 * what runAgent writes: per step a budget event, the step's events with usage, the usage
 * reconciliation and one to three tool calls; a warning and a compaction now and then. Streams
 * it out in 1 MB batches; returns the step count.
 */
function writeTrace(file: string, bytes: number): number {
  const sink = createTraceSink(file);
  const { emit } = sink;
  emit({
    type: 'run.started',
    model: { provider: 'openai', modelId: 'gpt-5.1' },
    instructions: { hash: 'e'.repeat(64), sources: [{ origin: 'AGENTS.md', sha256: 'd'.repeat(64) }] },
    tools: TOOLS,
    maxSteps: 1_000_000,
    historyMessages: 40,
  });
  let step = 0;
  let history = 20_000;
  while (sink.size() < bytes) {
    step += 1;
    const tokens = emitBudget(emit, step, history);
    if (step % 97 === 0)
      emit({ type: 'context.warning', step, message: 'The next request uses 81% of the context window.' });
    emit({ type: 'model.step.started', step });
    const calls = 1 + (step % 3);
    emitStepUsage(emit, step, tokens, calls);
    emitToolCalls(emit, step, calls);
    history += 700;
    if (step % 40 === 0) {
      emitCompaction(emit, step, history);
      history = 4000;
    }
  }
  emit({
    type: 'run.completed',
    status: 'completed',
    steps: step,
    usage: { inputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 1, reasoningTokens: 0 },
    durationMs: sink.sequence() * 40,
  });
  sink.close();
  return step;
}

type Emit = (event: Record<string, unknown>) => void;

/** Trace lines in envelopes with sequence and timestamp, written out in 1 MB batches. */
function createTraceSink(file: string): {
  readonly emit: Emit;
  /** Bytes written plus those waiting in the batch. */
  readonly size: () => number;
  readonly sequence: () => number;
  readonly close: () => void;
} {
  const descriptor = openSync(file, 'w', 0o600);
  const start = Date.parse('2025-06-02T09:00:00.000Z');
  let sequence = 0;
  let written = 0;
  let batch: string[] = [];
  let batchBytes = 0;
  const emit = (event: Record<string, unknown>) => {
    const line = `${JSON.stringify({ schemaVersion: 1, runId, sessionId: 'session_bench', sequence, timestamp: new Date(start + sequence * 40).toISOString(), event })}\n`;
    sequence += 1;
    batch.push(line);
    batchBytes += line.length;
    if (batchBytes >= 1024 * 1024) flush();
  };
  const flush = () => {
    const chunk = batch.join('');
    writeSync(descriptor, chunk);
    written += Buffer.byteLength(chunk);
    batch = [];
    batchBytes = 0;
  };
  return {
    emit,
    size: () => written + batchBytes,
    sequence: () => sequence,
    close: () => {
      flush();
      closeSync(descriptor);
    },
  };
}

/** The step's budget event; returns its estimated tokens. */
function emitBudget(emit: Emit, step: number, history: number): number {
  const continuation = (step % 40) * 900;
  const categories = {
    instructions: 2400,
    checkpoint: step > 40 ? 1800 : 0,
    history,
    request: 300,
    continuation,
    toolSchemas: 5200,
    overhead: 180,
  };
  const tokens = Object.values(categories).reduce((sum, value) => sum + value, 0);
  const available = 400_000 - 32_000;
  emit({
    type: 'context.budgeted',
    step,
    model: { provider: 'openai', modelId: 'gpt-5.1' },
    retainedMessages: 30 + (step % 40),
    instructionsHash: 'e'.repeat(64),
    toolCount: TOOLS.length,
    toolSchemaTokens: categories.toolSchemas,
    mode: 'warn',
    decision: 'ok',
    contextWindowTokens: 400_000,
    windowSource: 'table',
    estimate: { tokens, method: 'provider-tokenizer', confidence: 'exact', categories },
    requestedOutputTokens: 32_000,
    bufferTokens: 8192,
    reservedTokens: 32_000,
    availableInputTokens: available,
    mandatoryTokens: tokens - history - categories.checkpoint,
    remainingHistoryTokens: available - (tokens - history),
    freeTokens: available - tokens,
    warnAtTokens: Math.floor(available * 0.8),
    overBudget: false,
  });
  return tokens;
}

/** The step's completion with provider usage, and the reconciliation of the estimate with it. */
function emitStepUsage(emit: Emit, step: number, tokens: number, calls: number): void {
  const reported = Math.round(tokens * (0.97 + (step % 7) / 100));
  const cached = Math.round(reported * 0.8);
  emit({
    type: 'model.step.completed',
    step,
    finishReason: 'tool-calls',
    usage: {
      inputTokens: reported,
      cacheReadTokens: cached,
      cacheWriteTokens: 1200,
      outputTokens: 300 + (step % 50),
      reasoningTokens: 120,
    },
    toolCalls: calls,
  });
  const errorTokens = tokens - reported;
  emit({
    type: 'context.usage.reconciled',
    step,
    model: { provider: 'openai', modelId: 'gpt-5.1' },
    estimatedTokens: tokens,
    reportedInputTokens: reported,
    cacheReadTokens: cached,
    cacheWriteTokens: 1200,
    errorTokens,
    errorPercent: Math.round((errorTokens / reported) * 1000) / 10,
    undercountBeyondBuffer: false,
    accuracy: {
      provider: 'openai',
      modelId: 'gpt-5.1',
      samples: step,
      meanErrorPercent: -1.2,
      meanAbsoluteErrorPercent: 2.9,
      maxUndercountTokens: 2100,
      undercountsBeyondBuffer: 0,
      unsafeForAutoCompaction: false,
    },
  });
}

function emitToolCalls(emit: Emit, step: number, calls: number): void {
  for (let call = 0; call < calls; call += 1) {
    const toolName = TOOLS[(step + call) % TOOLS.length] as string;
    const toolCallId = `call_${step}_${call}`;
    emit({
      type: 'tool.call.started',
      step,
      toolCallId,
      toolName,
      summary: `${toolName} packages/module-${step % 211}/src/file-${call}.ts`,
    });
    emit({
      type: 'tool.call.completed',
      step,
      toolCallId,
      toolName,
      outcome: OUTCOMES[(step * 3 + call) % OUTCOMES.length],
      durationMs: 5 + ((step * 37 + call * 11) % 4000),
    });
  }
}

function emitCompaction(emit: Emit, step: number, history: number): void {
  emit({ type: 'context.compaction.started', step: step + 1, strategy: 'forge-state' });
  emit({
    type: 'context.compaction.completed',
    step: step + 1,
    strategy: 'forge-state',
    reclaimedTokens: history - 4000,
    tokensBefore: history + 9000,
    tokensAfter: 13_000,
    checkpointHash: (step % 16).toString(16).repeat(64),
    checkpointId: `checkpoint_${step}`,
  });
}

interface Measurement {
  readonly seconds: number;
  /** User plus system CPU time of the child: less sensitive than wall time to other load on the machine. */
  readonly cpuSeconds: number;
  readonly rssMegabytes: number;
}

/** Runs the built CLI once with stdout to a file; returns wall time, CPU time and the child's own peak RSS. */
function inspectOnce(home: string, file: string, output: string): Promise<Measurement> {
  const reportUsage =
    "process.on('exit',()=>{const u=process.resourceUsage();process.stderr.write('\\nBENCH_USAGE='+u.maxRSS+','+(u.userCPUTime+u.systemCPUTime)+'\\n')})";
  const stdout = openSync(output, 'w');
  const started = process.hrtime.bigint();
  const child = spawn(
    process.execPath,
    [
      '--import',
      `data:text/javascript,${encodeURIComponent(reportUsage)}`,
      join(cliDirectory, 'bin', 'forge.js'),
      'inspect',
      file,
      '--json',
    ],
    {
      env: { ...process.env, FORGE_HOME: home, NO_COLOR: '1' },
      stdio: ['ignore', stdout, 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      closeSync(stdout);
      const usage = /BENCH_USAGE=(\d+),(\d+)/.exec(stderr);
      if (code !== 0 || usage === null) {
        reject(new Error(`forge inspect exited ${String(code)}: ${stderr}`));
        return;
      }
      resolve({ seconds, cpuSeconds: Number(usage[2]) / 1e6, rssMegabytes: Number(usage[1]) / 1024 });
    });
  });
}

async function main(): Promise<void> {
  console.log('building the CLI (apps/cli/build.mjs)…');
  execFileSync(process.execPath, ['build.mjs'], { cwd: cliDirectory, stdio: 'inherit' });
  const home = await mkdtemp(join(tmpdir(), 'forge-bench-inspect-'));
  try {
    await mkdir(join(home, 'runs'), { recursive: true });
    const file = join(home, 'runs', `${runId}.jsonl`);
    const steps = writeTrace(file, targetMegabytes * 1024 * 1024);
    const size = (await stat(file)).size;
    console.log(`trace: ${(size / 1024 / 1024).toFixed(1)} MB, ${steps.toLocaleString('en-US')} steps`);

    const output = join(home, 'report.json');
    const results: Measurement[] = [];
    for (let repeat = 0; repeat < repeats; repeat += 1) results.push(await inspectOnce(home, file, output));
    const report = JSON.parse((await import('node:fs')).readFileSync(output, 'utf8')) as {
      runs: { steps: number; budget: unknown[] }[];
    };
    if (report.runs[0]?.steps !== steps || report.runs[0].budget.length !== steps)
      throw new Error('The report does not cover every step of the trace.');

    const seconds = median(results.map((result) => result.seconds));
    const rss = median(results.map((result) => result.rssMegabytes));
    const maximumRss = Math.max(...results.map((result) => result.rssMegabytes));
    const cpuSeconds = median(results.map((result) => result.cpuSeconds));
    console.log(
      `forge inspect --json, ${repeats} runs: median ${seconds.toFixed(2)} s wall (target ≤ ${TARGET_SECONDS} s, ratio ${(seconds / TARGET_SECONDS).toFixed(2)}), ${cpuSeconds.toFixed(2)} s CPU`,
    );
    console.log(
      `peak RSS: median ${rss.toFixed(0)} MB, max ${maximumRss.toFixed(0)} MB (target ≤ ${TARGET_RSS_MB} MB, ratio ${(rss / TARGET_RSS_MB).toFixed(2)})`,
    );
    console.log(
      `throughput: ${(size / 1024 / 1024 / seconds).toFixed(0)} MB/s; report ${((await stat(output)).size / 1024 / 1024).toFixed(1)} MB of JSON; machine load average ${loadavg()[0]?.toFixed(1) ?? '?'} on ${availableParallelism()} CPUs`,
    );
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

await main();
