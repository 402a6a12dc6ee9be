// Measures the session store at 10K, 100K and 1M tokens of transcript: append latency, bytes
// written per append, and resume-to-view time (load the log + select the session's view). For
// comparison it also times the schema v1 way (rewrite the whole JSON file, fsync) per turn, and
// what `sessions list` costs per session now that it checks every line (against a full load).
// A measurement, not a test. Usage:
//   npx tsx --conditions=@forge/source scripts/bench-sessions.ts [appends-per-size]
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '@forge/core';
import { withRunIds } from '@forge/core/checkpoint';
import { createSession, listSessions, loadTranscript, openSession } from '@forge/persistence';
import { selectSessionView } from '@forge/sessions';
import { median, percentile } from './bench-support.js';

const appendsPerSize = Number(process.argv[2] ?? 200);
const sizes = [10_000, 100_000, 1_000_000];
const CHARS_PER_TOKEN = 4;
const countTokens = (message: Message) => Math.ceil(JSON.stringify(message).length / CHARS_PER_TOKEN);

function milliseconds(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** One synthetic agent turn (~1.2K tokens): a request, a tool call, its output, an answer. */
function syntheticTurn(turn: number): Message[] {
  const filler = (length: number, seed: string) =>
    `${seed} `.repeat(Math.ceil(length / (seed.length + 1))).slice(0, length);
  return [
    { role: 'user', content: filler(400, `request ${turn} about module ${turn % 17}`) },
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: filler(300, 'consider the call graph') },
        {
          type: 'tool-call',
          toolCallId: `call_${turn}`,
          toolName: 'read_file',
          input: { path: `src/module-${turn % 17}.ts` },
        },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: `call_${turn}`,
          toolName: 'read_file',
          output: { type: 'text', value: filler(3200, 'export const value = compute();') },
        },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: filler(900, `answer for turn ${turn}`) }] },
  ];
}

/** Builds a session of about `tokens` tokens in big batches (setup, not measured). */
async function buildSession(home: string, tokens: number): Promise<{ id: string; messages: Message[] }> {
  const writer = await createSession(home, { workspaceRoot: '/bench' });
  const messages: Message[] = [];
  let total = 0;
  let turn = 0;
  while (total < tokens) {
    const batch: Message[] = [];
    while (batch.length < 200 && total < tokens) {
      for (const message of syntheticTurn(turn)) {
        batch.push(message);
        total += countTokens(message);
      }
      turn += 1;
    }
    messages.push(...(await writer.appendMessages(batch)));
  }
  await writer.close();
  return { id: writer.id, messages };
}

/** The v1 way: the whole session as one JSON file, rewritten and flushed on every turn. */
async function rewriteWholeFile(file: string, messages: readonly Message[]): Promise<number> {
  const started = process.hrtime.bigint();
  const handle = await open(file, 'w', 0o600);
  await handle.writeFile(JSON.stringify({ version: 1, id: 'bench', createdAt: '', updatedAt: '', messages }));
  await handle.sync();
  await handle.close();
  return milliseconds(started);
}

const rows: Row[] = [];
interface Row {
  readonly tokens: number;
  readonly messages: number;
  readonly logBytes: number;
  readonly appendMedianMs: number;
  readonly appendP95Ms: number;
  readonly bytesPerAppend: number;
  readonly resumeToViewMs: number;
  readonly listMs: number;
  readonly openForWritingMs: number;
  readonly v1RewriteMedianMs: number;
}

interface Subject {
  readonly tokens: number;
  readonly home: string;
  readonly id: string;
  readonly messages: readonly Message[];
  readonly v1File: string;
  readonly appendSamples: number[];
  readonly resumeSamples: number[];
  readonly listSamples: number[];
  readonly v1Samples: number[];
}

/*
 * Sizes are measured in turn (round-robin), not one after the other, so that noise from other
 * processes on the machine falls on every size alike and the ratios stay meaningful.
 */
const directory = await mkdtemp(join(tmpdir(), 'forge-bench-sessions-'));
try {
  const subjects: Subject[] = [];
  for (const tokens of sizes) {
    const home = join(directory, `home-${tokens}`);
    const { id, messages } = await buildSession(home, tokens);
    subjects.push({
      tokens,
      home,
      id,
      messages,
      v1File: join(directory, `v1-${tokens}.json`),
      appendSamples: [],
      resumeSamples: [],
      listSamples: [],
      v1Samples: [],
    });
  }

  for (let run = 0; run < 7; run += 1) {
    for (const subject of subjects) {
      const started = process.hrtime.bigint();
      const loaded = await loadTranscript(subject.home, subject.id);
      selectSessionView({
        mode: 'compact',
        transcript: withRunIds(loaded.messages, loaded.runs),
        stored: loaded.checkpoint,
        nativeStates: new Map(),
        redact: (text) => text,
      });
      subject.resumeSamples.push(milliseconds(started));
      const listStarted = process.hrtime.bigint();
      const [summary] = await listSessions(subject.home);
      subject.listSamples.push(milliseconds(listStarted));
      if (summary?.problem !== undefined) throw new Error(`the bench session is listed as ${summary.problem}`);
    }
  }

  const openTimes: number[] = [];
  const writers = [];
  for (const subject of subjects) {
    const started = process.hrtime.bigint();
    writers.push(await openSession(subject.home, subject.id));
    openTimes.push(milliseconds(started));
  }
  const sizesBefore = await Promise.all(writers.map(async (writer) => (await stat(writer.logFile)).size));
  for (let append = 0; append < appendsPerSize; append += 1) {
    const message: Message = {
      role: 'user',
      content: `follow-up ${append}: ${'please also check the edge cases '.repeat(12)}`,
    };
    for (const [position, writer] of writers.entries()) {
      const started = process.hrtime.bigint();
      await writer.appendMessages([message]);
      subjects[position]?.appendSamples.push(milliseconds(started));
    }
  }
  const sizesAfter = await Promise.all(writers.map(async (writer) => (await stat(writer.logFile)).size));
  await Promise.all(writers.map((writer) => writer.close()));

  for (let run = 0; run < 9; run += 1) {
    for (const subject of subjects) subject.v1Samples.push(await rewriteWholeFile(subject.v1File, subject.messages));
  }

  rows.push(
    ...subjects.map((subject, position): Row => ({
      tokens: subject.tokens,
      messages: subject.messages.length,
      logBytes: sizesAfter[position] ?? 0,
      appendMedianMs: median(subject.appendSamples),
      appendP95Ms: percentile(subject.appendSamples, 0.95),
      bytesPerAppend: ((sizesAfter[position] ?? 0) - (sizesBefore[position] ?? 0)) / appendsPerSize,
      resumeToViewMs: median(subject.resumeSamples),
      listMs: median(subject.listSamples),
      openForWritingMs: openTimes[position] ?? 0,
      v1RewriteMedianMs: median(subject.v1Samples),
    })),
  );
} finally {
  await rm(directory, { recursive: true, force: true });
}

const format = (value: number, digits = 2) => value.toFixed(digits).padStart(9);
console.log(`Session store benchmark (${appendsPerSize} appends per size, fdatasync per append, ${tmpdir()})`);
console.log(
  '   tokens  messages   log MiB  append ms (median / p95)  bytes/append  resume+view ms  list ms  open-for-write ms  v1 rewrite ms',
);
for (const row of rows) {
  console.log(
    `${String(row.tokens).padStart(9)} ${String(row.messages).padStart(9)} ${format(row.logBytes / 1048576)}` +
      `  ${format(row.appendMedianMs)} / ${format(row.appendP95Ms)}   ${format(row.bytesPerAppend, 0)}     ${format(row.resumeToViewMs, 1)}  ${format(row.listMs, 1)}` +
      `          ${format(row.openForWritingMs, 1)}      ${format(row.v1RewriteMedianMs, 1)}`,
  );
}
const first = rows[0] as Row;
const last = rows.at(-1) as Row;
console.log(
  `append median 1M/10K: ${(last.appendMedianMs / first.appendMedianMs).toFixed(2)}x (flat is ~1x; target ≤ 5 ms at 1M: ${last.appendMedianMs <= 5 ? 'met' : 'missed'}); ` +
    `bytes/append 1M/10K: ${(last.bytesPerAppend / first.bytesPerAppend).toFixed(2)}x; ` +
    `resume+view at 1M: ${last.resumeToViewMs.toFixed(0)} ms (target ≤ 1000: ${last.resumeToViewMs <= 1000 ? 'met' : 'missed'}); ` +
    `v1 rewrite at 1M: ${last.v1RewriteMedianMs.toFixed(1)} ms and ${(last.logBytes / 1048576).toFixed(1)} MiB per turn; ` +
    `sessions list of one 1M session: ${last.listMs.toFixed(1)} ms, ${(last.listMs / last.resumeToViewMs).toFixed(2)}x a full load`,
);
