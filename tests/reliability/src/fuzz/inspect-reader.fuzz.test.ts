import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInstructionSnapshot, type ApprovalGate, type Tool } from '@forge/core';
import { ScriptedModel } from '@forge/core/testing';
import { ProblemLog, readTraceFile } from '@forge/cli/inspect-reader';
import { runCli } from '@forge/cli/testing';
import { readTrace } from '@forge/persistence';
import { runSessionTurn } from '@forge/sessions';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { byteMutations, fuzz, jsonMutations, MAX_RSS_GROWTH_MB, onlyTypedErrors } from '../support/fuzz-harness.js';
import { reportCounts, runSize, suiteTimeoutMs } from '../support/run-size.js';
import { useTemporaryDirectories } from '../support/temporary-directories.js';

/*
 * Issue 10, point 2: the event-envelope readers — `forge inspect`'s streaming trace reader and the
 * persistence trace reader — on traces made of real envelopes (recorded from a run), edited
 * envelopes, random JSON, random bytes, blank, huge and torn lines. The inspect reader reports
 * problems and never throws; the persistence reader throws only its typed errors; `forge inspect`
 * itself answers with a report or a one-line error, never a crash.
 */

const RUNS = runSize(300, 100_000);
const temporaryDirectory = useTemporaryDirectories();
let envelopes: unknown[] = [];
let runId = '';

const note: Tool = {
  name: 'read_note',
  description: 'Reads a note.',
  inputSchema: { type: 'object' },
  risk: 'read',
  execute: async () => ({ output: { type: 'text', value: 'the sky is green' } }),
};
const allowAll: ApprovalGate = { check: async () => ({ kind: 'allow' }) };

beforeAll(async () => {
  const home = await temporaryDirectory('inspect-seed');
  const model = new ScriptedModel([
    {
      text: 'Let me look.',
      toolCalls: [
        { toolName: 'read_note', input: {} },
        { toolName: 'missing_tool', input: {} },
      ],
      usage: { inputTokens: 40, outputTokens: 8 },
    },
    { text: 'Green.', usage: { inputTokens: 60, outputTokens: 2, cacheReadTokens: 30 } },
  ]);
  const turn = await runSessionTurn({
    home,
    workspaceRoot: null,
    model,
    request: 'What colour is the sky?',
    instructions: createInstructionSnapshot('Answer briefly.'),
    tools: [note],
    approvals: allowAll,
    context: { recentTailTokens: 4000 },
  });
  runId = turn.runId;
  envelopes = (await readFile(turn.tracePath, 'utf8'))
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as unknown);
  expect(envelopes.length).toBeGreaterThan(5);
});

function traceLines(): fc.Arbitrary<string> {
  const envelope = fc.constantFrom(...envelopes);
  const line = fc.oneof(
    { weight: 6, arbitrary: envelope.map((value) => JSON.stringify(value)) },
    {
      weight: 4,
      arbitrary: envelope.chain((value) => jsonMutations(value)).map((value) => JSON.stringify(value) ?? ''),
    },
    {
      weight: 1,
      arbitrary: envelope
        .chain((value) => byteMutations(Buffer.from(JSON.stringify(value))))
        .map((bytes) => Buffer.from(bytes).toString('latin1')),
    },
    { weight: 1, arbitrary: fc.json({ maxDepth: 3 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 300 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        '   ',
        '\r',
        '{}',
        '[]',
        'null',
        '{"schemaVersion":99,"runId":"r","sequence":0,"timestamp":"t","event":{"type":"x"}}',
      ),
    },
  );
  return fc
    .tuple(fc.array(line, { maxLength: 40 }), fc.boolean(), fc.constantFrom('\n', '\r\n'))
    .map(([lines, finalNewline, separator]) => `${lines.join(separator)}${finalNewline ? separator : ''}`);
}

describe('fuzzing the trace readers', () => {
  it(
    'inspect reports problems instead of throwing, the persistence reader throws only typed errors, forge inspect never crashes',
    async () => {
      const home = await temporaryDirectory('inspect-fuzz');
      const file = join(home, 'runs', `${runId}.jsonl`);
      await mkdir(join(home, 'runs'));
      let reported = 0;
      let cliRuns = 0;
      const stats = await fuzz(
        fc.tuple(traceLines(), fc.nat({ max: 9 })),
        async ([text, pick]) => {
          await writeFile(file, text);
          const runs = await readTraceFile(file, new ProblemLog());
          reported += runs.length;
          try {
            for await (const entry of readTrace(home, runId)) expect(['event', 'torn']).toContain(entry.kind);
          } catch (error) {
            onlyTypedErrors(error);
          }
          if (pick !== 0) return;
          cliRuns += 1;
          const html = join(home, 'report.html');
          for (const args of [
            ['inspect', file, '--json'],
            ['inspect', file, '--html', html],
          ]) {
            const outcome = await runCli(args, { cwd: home, env: { FORGE_DEBUG: '1', FORGE_HOME: home } });
            expect([0, 1]).toContain(outcome.code);
            for (const line of outcome.stderr.split('\n').filter((text) => text.length > 0))
              expect(line.startsWith('forge: ')).toBe(true);
          }
        },
        { target: 'inspect-reader', numRuns: RUNS, caseTimeoutMs: 5_000 },
      );
      reportCounts('fuzz inspect-reader', {
        cases: stats.cases,
        runsReported: reported,
        cliRuns,
        slowestCaseMs: stats.slowestCaseMs,
        rssGrowthMb: stats.rssGrowthMb,
      });
      expect(reported).toBeGreaterThan(0);
      expect(stats.rssGrowthMb).toBeLessThan(MAX_RSS_GROWTH_MB);
    },
    suiteTimeoutMs(40_000),
  );
});
