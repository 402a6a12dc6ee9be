import { openSession } from '@forge/persistence';
import { appendFile, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { temporaryDirectory } from '../test-support/cli-harness.js';
import { buildInspectReport } from './build-report.js';
import { buildSessionSummary } from './build-session-summary.js';
import { resolveTarget } from './resolve-target.js';
import { RUN_INDEX_FILE_NAME, runLineOf } from './run-index.js';
import {
  compactionRunEvents,
  envelopeLines,
  recordRun,
  recordSession,
  writeTraceLines,
} from './trace-fixtures.test-helpers.js';

/* The run index of `forge inspect <session>` (issue 33): a cache of the traces that agrees with reading them. */

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

const SESSION = 'session_indexed';

async function sessionOfRuns(inputs: readonly number[]): Promise<{ home: string; runIds: string[] }> {
  const directory = await temporaryDirectory('forge-run-index-');
  cleanups.push(directory.remove);
  const runIds = inputs.map((_, index) => `run_${String(index).padStart(2, '0')}`);
  for (const [index, runId] of runIds.entries())
    await recordRun(directory.path, {
      runId,
      sessionId: SESSION,
      steps: [{ text: `answer of ${runId}`, usage: { inputTokens: inputs[index] ?? 0, cacheReadTokens: 40 } }],
    });
  await recordSession(directory.path, SESSION, runIds);
  return { home: directory.path, runIds };
}

const resolve = (home: string) =>
  resolveTarget({ argument: SESSION, last: false, home, cwd: home, workspaceRoot: home });

/** The summary from the run index, and what reading every trace whole says, side by side. */
async function bothWays(home: string, run?: string) {
  const summary = await buildSessionSummary(await resolve(home), run === undefined ? {} : { run });
  const full = await buildInspectReport(await resolve(home));
  return { summary, full };
}

function expectAgreement({ summary, full }: Awaited<ReturnType<typeof bothWays>>): void {
  expect(summary.lines).toEqual(full.runs.map(runLineOf));
  expect(summary.report.totals).toEqual(full.totals);
  expect(summary.report.problems).toEqual(full.problems);
  expect(summary.report.problemsNotListed).toBe(full.problemsNotListed);
}

const indexFile = (home: string) => path.join(home, 'sessions', SESSION, RUN_INDEX_FILE_NAME);

describe('the run index of a session', () => {
  it('gives the same lines, totals and problems as the traces, built or read, and reads one trace in full', async () => {
    const { home } = await sessionOfRuns([100, 250, 400, 800]);
    // A damaged line, a trace named as a manual compaction's and a trace gone: each must come out the same both ways.
    await appendFile(path.join(home, 'runs', 'run_01.jsonl'), 'not json\n');
    await writeTraceLines(
      home,
      `compact_${SESSION}_0001`,
      envelopeLines(`compact_${SESSION}_0001`, compactionRunEvents(), SESSION),
    );
    await rm(path.join(home, 'runs', 'run_02.jsonl'));

    const built = await bothWays(home);
    expectAgreement(built);
    expect((await stat(indexFile(home))).mode & 0o777).toBe(0o600);
    expect(built.summary.report.problems.map((problem) => problem.kind).sort()).toEqual([
      'malformed_line',
      'missing_trace',
    ]);
    expect(built.summary.detailed).toEqual(built.full.runs.filter((run) => run.kind === 'run').at(-1));
    expect(built.summary.lines).toHaveLength(4);
    expect(built.summary.report.runs).toEqual([built.summary.detailed]);

    const read = await bothWays(home, 'run_01');
    expectAgreement(read);
    expect(read.summary.detailed).toEqual(read.full.runs.find((run) => run.runId === 'run_01'));
  });

  it('answers from the index while the traces and the log are as they were', async () => {
    const { home } = await sessionOfRuns([100, 250]);
    await bothWays(home);
    const stored = JSON.parse(await readFile(indexFile(home), 'utf8')) as {
      traces: Record<string, { runs: { usage: { inputTokens: number } }[] }>;
    };
    const entry = stored.traces[path.join(home, 'runs', 'run_00.jsonl')];
    expect(entry?.runs[0]?.usage.inputTokens).toBe(100);
    if (entry?.runs[0] !== undefined) entry.runs[0].usage.inputTokens = 7;
    await writeFile(indexFile(home), JSON.stringify(stored));

    const summary = await buildSessionSummary(await resolve(home), {});
    expect(summary.lines[0]?.usage.inputTokens).toBe(7);
  });

  it('reads a trace again when it changed, and the log again when the session has new runs', async () => {
    const { home, runIds } = await sessionOfRuns([100, 250]);
    expectAgreement(await bothWays(home));
    await rm(path.join(home, 'runs', 'run_00.jsonl'));
    await recordRun(home, {
      runId: 'run_00',
      sessionId: SESSION,
      steps: [{ text: 'a longer answer of run_00 after all', usage: { inputTokens: 123_456 } }],
    });
    await recordRun(home, { runId: 'run_02', sessionId: SESSION, steps: [{ text: 'new', usage: { inputTokens: 5 } }] });
    const session = await openSession(home, SESSION);
    try {
      await session.recordRunStart({ runId: 'run_02' });
      await session.appendMessages([{ role: 'user', content: 'request of run_02' }], { runId: 'run_02' });
    } finally {
      await session.close();
    }

    const changed = await bothWays(home);
    expectAgreement(changed);
    expect(changed.summary.lines.map((line) => line.runId)).toEqual([...runIds, 'run_02']);
    expect(changed.summary.lines.find((line) => line.runId === 'run_00')?.usage.inputTokens).toBe(123_456);
  });

  it('only costs time when it cannot be written', async () => {
    const { home } = await sessionOfRuns([100, 250]);
    const expected = await bothWays(home);
    await rm(indexFile(home));
    // A directory where the file should be: the rename over it fails, and reading finds no file.
    await mkdir(indexFile(home));
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const again = await bothWays(home);
      expectAgreement(again);
      expect(again.summary.lines).toEqual(expected.summary.lines);
    }
    expect((await stat(indexFile(home))).isDirectory()).toBe(true);
  });

  it('is rebuilt from the traces when it is damaged or deleted', async () => {
    const { home } = await sessionOfRuns([100, 250, 400]);
    const first = await bothWays(home);
    for (const damage of ['{"v":1,"log":', '[]', ''])
      for (const remove of [false, true]) {
        if (remove) await rm(indexFile(home));
        else await writeFile(indexFile(home), damage);
        const again = await bothWays(home);
        expectAgreement(again);
        expect(again.summary.lines).toEqual(first.summary.lines);
        expect(JSON.parse(await readFile(indexFile(home), 'utf8'))).toMatchObject({ v: 1 });
      }
  });
});
