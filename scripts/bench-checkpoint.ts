/*
 * Deterministic checkpoint benchmark: build time and view render time for synthetic sessions of
 * about 10K, 100K and 1M tokens (one token per four characters of message text). No model is
 * involved: the forge-state strategy makes zero model calls. A second table measures the build
 * with the working set as a compaction makes it: select the files in hand, read them from a real
 * workspace on disk (as the host does), and render the view with their text.
 *
 *   npx tsx --conditions=@forge/source scripts/bench-checkpoint.ts
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sha256Hex } from '@forge/core';
import {
  buildForgeStateCheckpoint,
  DEFAULT_WORKING_SET_BUDGET,
  renderCheckpointView,
  type CheckpointTranscriptEntry,
} from '@forge/core/checkpoint';
import { createRedactor } from '@forge/core/redaction';
import { readWorkingSetFiles } from '@forge/tools';
import { median, syntheticTranscript, toolCall, toolResult } from './bench-support.js';
import { workingSetLimitsFor } from '@forge/core/internals';

const SIZES = [10_000, 100_000, 1_000_000] as const;
const RUNS = 7;

function fileBody(round: number): string {
  const lines: string[] = [];
  for (let line = 0; line < 40; line += 1)
    lines.push(`export function handler${round}_${line}(input: string): string { return input.trim(); }`);
  return lines.join('\n');
}

/** A session of read → note → edit → test rounds until it holds about `tokens` tokens. */
function syntheticSession(tokens: number): CheckpointTranscriptEntry[] {
  return syntheticTranscript(tokens, (round, push) => {
    const runId = `run_${Math.floor(round / 10)}`;
    const path = `src/module-${round % 40}.ts`;
    const body = fileBody(round);
    if (round % 10 === 0)
      push({
        message: {
          role: 'user',
          content: `Round ${round}: refactor ${path} and keep the tests green. Do not touch the public API.`,
        },
        runId,
      });
    push(toolCall(`read_${round}`, 'read_file', { path }, runId));
    push(
      toolResult(`read_${round}`, 'read_file', body, runId, {
        path,
        sha256: sha256Hex(body),
        bytes: body.length,
        complete: true,
      }),
    );
    if (round % 3 === 0) {
      push(
        toolCall(
          `note_${round}`,
          'checkpoint_note',
          {
            kind: 'fact',
            key: `module-${round % 40}`,
            value: `exports 40 handlers (round ${round})`,
            evidence: { source: 'tool-call', toolCallId: `read_${round}` },
            dependsOn: [path],
          },
          runId,
        ),
      );
      push(toolResult(`note_${round}`, 'checkpoint_note', 'Recorded fact in session memory.', runId));
    }
    const after = `${body}\n// edited in round ${round}`;
    push(toolCall(`edit_${round}`, 'edit_file', { path, oldText: 'trim()', newText: 'trimEnd()' }, runId));
    push(
      toolResult(`edit_${round}`, 'edit_file', `Edited ${path}.`, runId, {
        path,
        sha256Before: sha256Hex(body),
        sha256After: sha256Hex(after),
      }),
    );
    const failing = round % 7 === 3;
    const output = failing
      ? `FAIL ${path}\nAssertionError: expected 'a' to be 'b'\n${'  at frame\n'.repeat(20)}`
      : `Test Files 1 passed\nTests 40 passed\n${'.'.repeat(400)}`;
    push(toolCall(`test_${round}`, 'run_command', { argv: ['pnpm', 'vitest', 'run', path] }, runId));
    push(
      toolResult(`test_${round}`, 'run_command', output, runId, {
        argv: ['pnpm', 'vitest', 'run', path],
        exitCode: failing ? 1 : 0,
        signal: null,
        timedOut: false,
        durationMs: 900,
        truncated: false,
      }),
    );
    push({
      message: {
        role: 'assistant',
        content: [
          {
            type: 'text',
            text: `Round ${round}: ${failing ? 'the test failed; trying another way' : 'done, tests pass'}.`,
          },
        ],
      },
      runId,
    });
  });
}

function time<T>(work: () => T): { value: T; ms: number } {
  const start = performance.now();
  const value = work();
  return { value, ms: performance.now() - start };
}

const redact = createRedactor({ secrets: ['bench-secret-value-123'] }).redact;
const rows: {
  tokens: number;
  messages: number;
  buildMs: number;
  renderMs: number;
  viewChars: number;
  checkpointTokens: number;
}[] = [];

for (const tokens of SIZES) {
  const transcript = syntheticSession(tokens);
  const tailStart = transcript.findLastIndex((entry) => entry.message.role === 'user');
  buildForgeStateCheckpoint({ transcript, tailStart, redact });
  const builds: number[] = [];
  const renders: number[] = [];
  let view = '';
  let checkpointTokens = 0;
  for (let run = 0; run < RUNS; run += 1) {
    const built = time(() => buildForgeStateCheckpoint({ transcript, tailStart, redact }));
    builds.push(built.ms);
    const rendered = time(() => renderCheckpointView(built.value));
    renders.push(rendered.ms);
    view = rendered.value;
    checkpointTokens = built.value.estimatedTokens;
  }
  rows.push({
    tokens,
    messages: transcript.length,
    buildMs: median(builds),
    renderMs: median(renders),
    viewChars: view.length,
    checkpointTokens,
  });
}

async function timeAsync<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await work();
  return { value, ms: performance.now() - start };
}

// The workspace the synthetic session worked in: its 40 modules, as they are after the last edit.
const workspace = await mkdtemp(path.join(tmpdir(), 'forge-bench-checkpoint-'));
await mkdir(path.join(workspace, 'src'));
for (let module = 0; module < 40; module += 1)
  await writeFile(path.join(workspace, `src/module-${module}.ts`), `${fileBody(module)}\n// edited in round ${module}`);
// A 1M-token window (about 1,000,000 available, target half of it): the budget ceiling applies.
const limits = workingSetLimitsFor(DEFAULT_WORKING_SET_BUDGET, 500_000);
const withFiles: {
  tokens: number;
  buildMs: number;
  readMs: number;
  renderMs: number;
  totalMs: number;
  files: number;
  viewChars: number;
}[] = [];
for (const tokens of SIZES) {
  const transcript = syntheticSession(tokens);
  const tailStart = transcript.findLastIndex((entry) => entry.message.role === 'user');
  const totals: number[] = [];
  const builds: number[] = [];
  const reads: number[] = [];
  const renders: number[] = [];
  let files = 0;
  let viewChars = 0;
  for (let run = 0; run < RUNS; run += 1) {
    const built = time(() => buildForgeStateCheckpoint({ transcript, tailStart, redact, workingSet: limits }));
    const paths = built.value.workingSet?.files.map((file) => file.path) ?? [];
    const read = await timeAsync(() => readWorkingSetFiles(workspace, paths));
    const rendered = time(() =>
      renderCheckpointView(built.value, undefined, undefined, { contents: read.value, redact }),
    );
    builds.push(built.ms);
    reads.push(read.ms);
    renders.push(rendered.ms);
    totals.push(built.ms + read.ms + rendered.ms);
    files = paths.length;
    viewChars = rendered.value.length;
  }
  withFiles.push({
    tokens,
    buildMs: median(builds),
    readMs: median(reads),
    renderMs: median(renders),
    totalMs: median(totals),
    files,
    viewChars,
  });
}
await rm(workspace, { recursive: true, force: true });

console.log(`deterministic forge-state checkpoint, median of ${RUNS} runs, 0 model calls`);
console.log(
  'session tokens | messages | build ms | render ms | build ms per 100K tokens | view chars | checkpoint tokens',
);
for (const row of rows) {
  console.log(
    [
      String(row.tokens).padStart(14),
      String(row.messages).padStart(8),
      row.buildMs.toFixed(1).padStart(8),
      row.renderMs.toFixed(2).padStart(9),
      ((row.buildMs / row.tokens) * 100_000).toFixed(1).padStart(24),
      String(row.viewChars).padStart(10),
      String(row.checkpointTokens).padStart(17),
    ].join(' | '),
  );
}
const first = rows[0];
const last = rows.at(-1);
if (first !== undefined && last !== undefined) {
  console.log(
    `growth 10K → 1M: ${(last.buildMs / first.buildMs).toFixed(1)}× build time for ${(last.tokens / first.tokens).toFixed(0)}× tokens (linear = ${(last.tokens / first.tokens).toFixed(0)}×)`,
  );
  console.log(
    `target ≤ 200 ms at 1M tokens: ${last.buildMs <= 200 ? 'met' : 'NOT met'} (${last.buildMs.toFixed(1)} ms)`,
  );
}

console.log('');
console.log(
  `with the working set (${limits.maxChars} characters, up to ${limits.maxFiles} files, read from a workspace on disk), median of ${RUNS} runs`,
);
console.log('session tokens | build ms | read ms | render ms | total ms | files in hand | view chars');
for (const row of withFiles) {
  console.log(
    [
      String(row.tokens).padStart(14),
      row.buildMs.toFixed(1).padStart(8),
      row.readMs.toFixed(1).padStart(7),
      row.renderMs.toFixed(2).padStart(9),
      row.totalMs.toFixed(1).padStart(8),
      String(row.files).padStart(13),
      String(row.viewChars).padStart(10),
    ].join(' | '),
  );
}
const largest = withFiles.at(-1);
if (largest !== undefined)
  console.log(
    `target ≤ 200 ms at 1M tokens with the working set: ${largest.totalMs <= 200 ? 'met' : 'NOT met'} (${largest.totalMs.toFixed(1)} ms)`,
  );
