// Measures Codex rollout import: throughput (MB/s) and peak resident memory on synthetic rollouts
// in the Codex 0.169 format (turns with reasoning, commands, patches, token counts and a
// compaction every 40 turns), 64 MB and 1 GB by default. Each run imports in a fresh child process
// so the peak RSS belongs to that import alone. `stream` hands messages to a callback; `session`
// is `forge import codex --session` itself (the transcript streamed into a new session in a
// temporary FORGE_HOME, and the checkpoint built on the way); `collect` keeps the whole transcript,
// for comparison (only up to 256 MB). The last lines give the RSS growth of the larger file over
// the smaller one per mode: about 1 means memory stays flat. A measurement, not a test.
// Usage: npx tsx --conditions=@forge/source scripts/bench-codex-import.ts [megabytes,...] [runs]
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importCodexRollout } from '@forge/codex';
import { median } from './bench-support.js';

const MEGABYTE = 1024 * 1024;

async function child(mode: string, path: string): Promise<void> {
  if (mode === 'session') return sessionChild(path);
  const before = process.memoryUsage().rss;
  let messages = 0;
  const started = process.hrtime.bigint();
  const imported = await importCodexRollout(path, mode === 'stream' ? { onMessage: () => (messages += 1) } : {});
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (mode !== 'stream') messages = imported.messages.length;
  const peakRss = process.resourceUsage().maxRSS * 1024;
  console.log(JSON.stringify({ seconds, peakRss, rssBefore: before, messages, lines: imported.state.source.lines }));
}

/** `forge import codex --session --json` through the CLI's own entry point, into a temporary FORGE_HOME. */
async function sessionChild(path: string): Promise<void> {
  const { main: forge } = await import('@forge/cli');
  const { PassThrough } = await import('node:stream');
  const home = await mkdtemp(join(tmpdir(), 'forge-bench-home-'));
  try {
    let stdout = '';
    let stderr = '';
    const output = (sink: (text: string) => void) =>
      Object.assign(new PassThrough(), { isTTY: false }).on('data', (chunk: Buffer) => sink(chunk.toString('utf8')));
    const io = {
      stdin: new PassThrough(),
      stdout: output((text) => (stdout += text)),
      stderr: output((text) => (stderr += text)),
      env: { FORGE_HOME: home, PATH: process.env['PATH'] },
      cwd: tmpdir(),
      onInterrupt: () => () => {},
    };
    const before = process.memoryUsage().rss;
    const started = process.hrtime.bigint();
    const code = await forge(
      ['node', 'forge', 'import', 'codex', path, '--session', '--json'],
      io as unknown as Parameters<typeof forge>[1],
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (code !== 0) throw new Error(`forge import codex exited ${code}: ${stderr}`);
    const document = JSON.parse(stdout) as { messageCount: number; state: { source: { lines: number } } };
    const peakRss = process.resourceUsage().maxRSS * 1024;
    console.log(
      JSON.stringify({
        seconds,
        peakRss,
        rssBefore: before,
        messages: document.messageCount,
        lines: document.state.source.lines,
      }),
    );
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

function line(type: string, payload: unknown, turn: number): string {
  return `${JSON.stringify({ timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, turn % 60)).toISOString(), type, payload })}\n`;
}

/** One synthetic turn of roughly 20 KB. */
function turnLines(turn: number): string[] {
  const lines = [...requestLines(turn), ...commandLines(turn), ...patchLines(turn), ...replyLines(turn)];
  if (turn % 40 === 39) {
    lines.push(
      line(
        'compacted',
        { message: '', replacement_history: [{ type: 'compaction', encrypted_content: `opaque-${turn}` }] },
        turn,
      ),
    );
  }
  return lines;
}

function requestLines(turn: number): string[] {
  return [
    line(
      'response_item',
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: `Please fix issue ${turn} in module ${turn % 200}. ${'Details. '.repeat(40)}` },
        ],
      },
      turn,
    ),
    line('turn_context', { cwd: '/nonexistent/bench-workspace', model: 'gpt-5.5' }, turn),
    line(
      'response_item',
      {
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: `Plan for ${turn}: ${'think '.repeat(60)}` }],
        encrypted_content: 'x'.repeat(1500),
      },
      turn,
    ),
  ];
}

function commandLines(turn: number): string[] {
  const output = `${'test output line for module '.repeat(3)}${turn}\n`.repeat(120);
  return [
    line(
      'response_item',
      {
        type: 'function_call',
        name: 'exec_command',
        arguments: JSON.stringify({ cmd: `npm test -- module-${turn % 200}` }),
        call_id: `call_t${turn}`,
      },
      turn,
    ),
    line(
      'event_msg',
      {
        type: 'item_completed',
        item: {
          type: 'CommandExecution',
          id: `call_t${turn}`,
          exit_code: turn % 7 === 0 ? 1 : 0,
          status: turn % 7 === 0 ? 'failed' : 'completed',
        },
      },
      turn,
    ),
    line(
      'response_item',
      {
        type: 'function_call_output',
        call_id: `call_t${turn}`,
        output: `Process exited with code ${turn % 7 === 0 ? 1 : 0}\nOutput:\n${output}`,
      },
      turn,
    ),
  ];
}

function patchLines(turn: number): string[] {
  const patch = `*** Begin Patch\n*** Update File: src/module-${turn % 200}.ts\n@@\n-${'old line\n-'.repeat(20)}old\n+${'new line\n+'.repeat(20)}new\n*** End Patch\n`;
  return [
    line(
      'response_item',
      { type: 'custom_tool_call', name: 'apply_patch', input: patch, call_id: `call_p${turn}` },
      turn,
    ),
    line(
      'response_item',
      {
        type: 'custom_tool_call_output',
        call_id: `call_p${turn}`,
        output: 'Exit code: 0\nOutput:\nSuccess. Updated the following files:\nM src/module.ts\n',
      },
      turn,
    ),
  ];
}

function replyLines(turn: number): string[] {
  const usage = {
    input_tokens: 4000 + turn,
    cached_input_tokens: 1000,
    output_tokens: 300,
    reasoning_output_tokens: 80,
    total_tokens: 4300 + turn,
  };
  return [
    line(
      'response_item',
      {
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: `Fixed issue ${turn}. ${'Explanation. '.repeat(50)}` }],
      },
      turn,
    ),
    line(
      'event_msg',
      {
        type: 'token_count',
        info: { total_token_usage: usage, last_token_usage: usage, model_context_window: 258400 },
      },
      turn,
    ),
    line('event_msg', { type: 'task_complete', turn_id: `turn-${turn}` }, turn),
  ];
}

async function writeRollout(path: string, megabytes: number): Promise<number> {
  const out = createWriteStream(path);
  out.write(
    line('session_meta', { id: 'bench-session', cwd: '/nonexistent/bench-workspace', cli_version: '0.169.0' }, 0),
  );
  let written = 0;
  for (let turn = 0; written < megabytes * MEGABYTE; turn += 1) {
    for (const text of turnLines(turn)) {
      written += Buffer.byteLength(text);
      if (!out.write(text)) await once(out, 'drain');
    }
  }
  out.end();
  await once(out, 'finish');
  return (await stat(path)).size;
}

async function main(): Promise<void> {
  const sizes = (process.argv[2] ?? '64,1024').split(',').map(Number);
  const runs = Number(process.argv[3] ?? 3);
  const directory = await mkdtemp(join(tmpdir(), 'forge-bench-codex-'));
  const growth = new Map<string, number[]>();
  try {
    for (const megabytes of sizes) {
      const path = join(directory, `rollout-bench-${megabytes}.jsonl`);
      const bytes = await writeRollout(path, megabytes);
      console.log(`synthetic rollout: ${(bytes / MEGABYTE).toFixed(1)} MB`);
      // One run of a file of a gigabyte or more: each takes minutes on the shared machine.
      const runsHere = megabytes >= 512 ? 1 : runs;
      for (const mode of ['stream', 'session', 'collect']) {
        if (mode === 'collect' && megabytes > 256) continue;
        const samples: { seconds: number; peakRss: number; rssBefore: number; messages: number; lines: number }[] = [];
        for (let run = 0; run < runsHere; run += 1) {
          const profile =
            process.env['FORGE_BENCH_CPU_PROFILE'] === undefined
              ? []
              : ['--cpu-prof', `--cpu-prof-dir=${process.env['FORGE_BENCH_CPU_PROFILE']}`];
          const result = spawnSync(
            process.execPath,
            [...profile, ...process.execArgv, process.argv[1] as string, '--child', mode, path],
            { encoding: 'utf8', maxBuffer: 64 * MEGABYTE },
          );
          if (result.status !== 0) throw new Error(`child import failed:\n${result.stderr}`);
          samples.push(JSON.parse(result.stdout.trim().split('\n').at(-1) as string));
        }
        const seconds = median(samples.map((sample) => sample.seconds));
        const peak = median(samples.map((sample) => sample.peakRss)) / MEGABYTE;
        const before = median(samples.map((sample) => sample.rssBefore)) / MEGABYTE;
        const first = samples[0];
        growth.set(mode, [...(growth.get(mode) ?? []), peak - before]);
        console.log(
          `${mode.padEnd(7)} median of ${runsHere}: ${(bytes / MEGABYTE / seconds).toFixed(1)} MB/s (${seconds.toFixed(2)} s), ` +
            `peak RSS ${peak.toFixed(0)} MB (+${(peak - before).toFixed(0)} MB over the ${before.toFixed(0)} MB before import), ` +
            `${first?.lines} lines, ${first?.messages} messages`,
        );
      }
      await rm(path, { force: true });
    }
    if (sizes.length > 1) {
      for (const [mode, values] of growth) {
        if (values.length < 2) continue;
        const [small = 0, large = 0] = [values[0], values.at(-1)];
        console.log(
          `${mode.padEnd(7)} RSS growth ${sizes[0]} MB → ${sizes.at(-1)} MB: +${small.toFixed(0)} MB → +${large.toFixed(0)} MB (ratio ${(large / Math.max(1, small)).toFixed(2)} for a ${((sizes.at(-1) ?? 1) / (sizes[0] ?? 1)).toFixed(0)}× larger file)`,
        );
      }
    }
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') await child(process.argv[3] as string, process.argv[4] as string);
else await main();
