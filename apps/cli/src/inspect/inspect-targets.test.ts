import { copyFile, mkdir, utimes } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, temporaryDirectory } from '../test-support/cli-harness.js';
import type { InspectReport } from './report.js';
import { recordRun, recordSession, toolRunSteps } from './trace-fixtures.test-helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function forgeHome(): Promise<string> {
  const directory = await temporaryDirectory('forge-inspect-');
  cleanups.push(directory.remove);
  return directory.path;
}

const inspect = (home: string, args: readonly string[], env: Record<string, string> = {}) => runCli(['inspect', ...args], { cwd: home, env: { FORGE_HOME: home, ...env } });

function parseReport(stdout: string): InspectReport {
  return JSON.parse(stdout) as InspectReport;
}

describe('what to inspect', () => {
  it('finds every run of a session through its log, and says which trace is missing', async () => {
    const home = await forgeHome();
    await recordRun(home, { runId: 'run_first', sessionId: 'session_pair', steps: toolRunSteps });
    await recordRun(home, { runId: 'run_second', sessionId: 'session_pair', steps: [{ text: 'Done.', usage: { inputTokens: 900 } }] });
    await recordSession(home, 'session_pair', ['run_first', 'run_second', 'run_lost']);

    const { code, stdout } = await inspect(home, ['session_pair', '--json']);
    expect(code).toBe(0);
    const report = parseReport(stdout);
    expect(report.target).toMatchObject({ kind: 'session', sessionId: 'session_pair' });
    expect(report.runs.map((run) => [run.runId, run.steps, run.status])).toEqual([
      ['run_first', 4, 'completed'],
      ['run_second', 1, 'completed'],
    ]);
    expect(report.problems).toEqual([
      { kind: 'missing_trace', file: path.join(home, 'runs', 'run_lost.jsonl'), message: `Session session_pair records run run_lost, but its trace ${path.join(home, 'runs', 'run_lost.jsonl')} does not exist.` },
    ]);
    expect((await inspect(home, ['session_pair'])).stdout.split('\n')[0]).toBe('Session session_pair: 2 run(s) with traces');
  });

  it('--last picks the trace written last', async () => {
    const home = await forgeHome();
    await recordRun(home, { runId: 'run_newer_name', steps: toolRunSteps });
    await recordRun(home, { runId: 'run_a_latest', steps: [{ text: 'Hi.' }] });
    await utimes(path.join(home, 'runs', 'run_newer_name.jsonl'), new Date('2025-01-01'), new Date('2025-01-01'));
    await utimes(path.join(home, 'runs', 'run_a_latest.jsonl'), new Date('2025-02-01'), new Date('2025-02-01'));

    const report = parseReport((await inspect(home, ['--last', '--json'])).stdout);
    expect(report.target).toEqual({ kind: 'last', argument: '--last', files: [path.join(home, 'runs', 'run_a_latest.jsonl')] });
    expect(report.runs[0]?.runId).toBe('run_a_latest');
  });

  it('takes a trace file by path, relative to the working directory', async () => {
    const home = await forgeHome();
    const { file } = await recordRun(home, { runId: 'run_copied', steps: toolRunSteps });
    await mkdir(path.join(home, 'elsewhere'));
    await copyFile(file, path.join(home, 'elsewhere', 'saved trace.jsonl'));

    const { code, stdout } = await runCli(['inspect', 'elsewhere/saved trace.jsonl', '--json'], { cwd: home, env: { FORGE_HOME: path.join(home, 'nowhere') } });
    expect(code).toBe(0);
    expect(parseReport(stdout).runs[0]?.runId).toBe('run_copied');
  });

  it('honours --forge-home over FORGE_HOME', async () => {
    const home = await forgeHome();
    await recordRun(home, { runId: 'run_flagged', steps: toolRunSteps });
    const { code } = await runCli(['inspect', 'run_flagged', '--forge-home', home], { cwd: home, env: { FORGE_HOME: path.join(home, 'nowhere') } });
    expect(code).toBe(0);
  });

  it.each([
    ['an unknown id', ['run_nope'], /^forge: error: no run or session 'run_nope' in .*; check the id, set FORGE_HOME, or use 'forge inspect --last' for the newest run\n$/],
    ['an id that is not safe and no such file', ['../../etc/passwd-nope'], /^forge: error: there is no file .*passwd-nope, and '..\/..\/etc\/passwd-nope' is not a run or session id either\. Invalid run or session id/],
    ['nothing to inspect', [], /^forge: error: say what to inspect: a run id, a session id or a trace file, or --last for the newest run\n$/],
    ['both --last and an id', ['--last', 'run_x'], /^forge: error: give either --last or a run, session or trace file, not both/],
    ['--last with no traces yet', ['--last'], /^forge: error: there are no run traces in .*runs yet/],
    ['a directory', ['.'], /^forge: error: .* is a directory; give a trace file/],
  ])('exits 2 for %s', async (_name, args, message) => {
    const home = await forgeHome();
    const { code, stdout, stderr } = await inspect(home, args);
    expect(stderr).toMatch(message);
    expect(stdout).toBe('');
    expect(code).toBe(2);
  });
});

