// Measures Codex rollout import: throughput (MB/s) and peak resident memory on a synthetic
// rollout of at least 50 MB in the Codex 0.169 format (turns with reasoning, commands, patches,
// token counts and a compaction every 40 turns). Each run imports in a fresh child process so the
// peak RSS belongs to that import alone. Streaming mode hands messages to a callback (bounded
// memory); collecting mode keeps the whole transcript, for comparison. A measurement, not a test.
// Usage: npx tsx --conditions=@forge/source scripts/bench-codex-import.ts [megabytes] [runs]
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importCodexRollout } from '../packages/codex/src/index.js';

const MEGABYTE = 1024 * 1024;

async function child(mode: string, path: string): Promise<void> {
  const before = process.memoryUsage().rss;
  let messages = 0;
  const started = process.hrtime.bigint();
  const imported = await importCodexRollout(path, mode === 'stream' ? { onMessage: () => (messages += 1) } : {});
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (mode !== 'stream') messages = imported.messages.length;
  const peakRss = process.resourceUsage().maxRSS * 1024;
  console.log(JSON.stringify({ seconds, peakRss, rssBefore: before, messages, lines: imported.state.source.lines }));
}

function line(type: string, payload: unknown, turn: number): string {
  return `${JSON.stringify({ timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, turn % 60)).toISOString(), type, payload })}\n`;
}

/** One synthetic turn of roughly 20 KB. */
function turnLines(turn: number): string[] {
  const output = `${'test output line for module '.repeat(3)}${turn}\n`.repeat(120);
  const patch = `*** Begin Patch\n*** Update File: src/module-${turn % 200}.ts\n@@\n-${'old line\n-'.repeat(20)}old\n+${'new line\n+'.repeat(20)}new\n*** End Patch\n`;
  const usage = { input_tokens: 4000 + turn, cached_input_tokens: 1000, output_tokens: 300, reasoning_output_tokens: 80, total_tokens: 4300 + turn };
  const lines = [
    line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: `Please fix issue ${turn} in module ${turn % 200}. ${'Details. '.repeat(40)}` }] }, turn),
    line('turn_context', { cwd: '/nonexistent/bench-workspace', model: 'gpt-5.5' }, turn),
    line('response_item', { type: 'reasoning', summary: [{ type: 'summary_text', text: `Plan for ${turn}: ${'think '.repeat(60)}` }], encrypted_content: 'x'.repeat(1500) }, turn),
    line('response_item', { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: `npm test -- module-${turn % 200}` }), call_id: `call_t${turn}` }, turn),
    line('event_msg', { type: 'item_completed', item: { type: 'CommandExecution', id: `call_t${turn}`, exit_code: turn % 7 === 0 ? 1 : 0, status: turn % 7 === 0 ? 'failed' : 'completed' } }, turn),
    line('response_item', { type: 'function_call_output', call_id: `call_t${turn}`, output: `Process exited with code ${turn % 7 === 0 ? 1 : 0}\nOutput:\n${output}` }, turn),
    line('response_item', { type: 'custom_tool_call', name: 'apply_patch', input: patch, call_id: `call_p${turn}` }, turn),
    line('response_item', { type: 'custom_tool_call_output', call_id: `call_p${turn}`, output: 'Exit code: 0\nOutput:\nSuccess. Updated the following files:\nM src/module.ts\n' }, turn),
    line('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `Fixed issue ${turn}. ${'Explanation. '.repeat(50)}` }] }, turn),
    line('event_msg', { type: 'token_count', info: { total_token_usage: usage, last_token_usage: usage, model_context_window: 258400 } }, turn),
    line('event_msg', { type: 'task_complete', turn_id: `turn-${turn}` }, turn),
  ];
  if (turn % 40 === 39) {
    lines.push(line('compacted', { message: '', replacement_history: [{ type: 'compaction', encrypted_content: `opaque-${turn}` }] }, turn));
  }
  return lines;
}

async function writeRollout(path: string, megabytes: number): Promise<number> {
  const out = createWriteStream(path);
  out.write(line('session_meta', { id: 'bench-session', cwd: '/nonexistent/bench-workspace', cli_version: '0.169.0' }, 0));
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

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

async function main(): Promise<void> {
  const megabytes = Number(process.argv[2] ?? 64);
  const runs = Number(process.argv[3] ?? 3);
  const directory = await mkdtemp(join(tmpdir(), 'forge-bench-codex-'));
  try {
    const path = join(directory, 'rollout-bench.jsonl');
    const bytes = await writeRollout(path, megabytes);
    console.log(`synthetic rollout: ${(bytes / MEGABYTE).toFixed(1)} MB`);
    for (const mode of ['stream', 'collect']) {
      const samples: { seconds: number; peakRss: number; rssBefore: number; messages: number; lines: number }[] = [];
      for (let run = 0; run < runs; run += 1) {
        const result = spawnSync(process.execPath, [...process.execArgv, process.argv[1] as string, '--child', mode, path], { encoding: 'utf8' });
        if (result.status !== 0) throw new Error(`child import failed:\n${result.stderr}`);
        samples.push(JSON.parse(result.stdout.trim().split('\n').at(-1) as string));
      }
      const seconds = median(samples.map((sample) => sample.seconds));
      const peak = median(samples.map((sample) => sample.peakRss)) / MEGABYTE;
      const before = median(samples.map((sample) => sample.rssBefore)) / MEGABYTE;
      const first = samples[0];
      console.log(
        `${mode.padEnd(7)} median of ${runs}: ${(bytes / MEGABYTE / seconds).toFixed(1)} MB/s (${seconds.toFixed(2)} s), ` +
          `peak RSS ${peak.toFixed(0)} MB (+${(peak - before).toFixed(0)} MB over the ${before.toFixed(0)} MB before import), ` +
          `${first?.lines} lines, ${first?.messages} messages`,
      );
    }
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') await child(process.argv[3] as string, process.argv[4] as string);
else await main();
