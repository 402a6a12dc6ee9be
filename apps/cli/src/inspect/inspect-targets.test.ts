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

const inspect = (home: string, args: readonly string[], env: Record<string, string> = {}) =>
  runCli(['inspect', ...args], { cwd: home, env: { FORGE_HOME: home, ...env } });

function parseReport(stdout: string): InspectReport {
  return JSON.parse(stdout) as InspectReport;
}

describe('what to inspect', () => {
  it('finds every run of a session through its log, and says which trace is missing', async () => {
    const home = await forgeHome();
    await recordRun(home, { runId: 'run_first', sessionId: 'session_pair', steps: toolRunSteps });
    await recordRun(home, {
      runId: 'run_second',
      sessionId: 'session_pair',
      steps: [{ text: 'Done.', usage: { inputTokens: 900 } }],
    });
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
      {
        kind: 'missing_trace',
        file: path.join(home, 'runs', 'run_lost.jsonl'),
        message: `Session session_pair records run run_lost, but its trace ${path.join(home, 'runs', 'run_lost.jsonl')} does not exist.`,
      },
    ]);
    expect((await inspect(home, ['session_pair'])).stdout.split('\n')[0]).toBe(
      'Session session_pair: 2 run(s) with traces',
    );
  });

  it("--last picks the newest run of this workspace's latest session, not a newer trace of another workspace", async () => {
    const home = await forgeHome();
    const here = path.join(home, 'here');
    const elsewhere = path.join(home, 'elsewhere');
    await mkdir(here);
    await mkdir(elsewhere);
    await recordRun(home, { runId: 'run_here_first', sessionId: 'session_here', steps: toolRunSteps });
    await recordRun(home, { runId: 'run_here_second', sessionId: 'session_here', steps: [{ text: 'Hi.' }] });
    await recordSession(home, 'session_here', ['run_here_first', 'run_here_second'], here);
    await recordRun(home, { runId: 'run_elsewhere', sessionId: 'session_elsewhere', steps: [{ text: 'Other.' }] });
    await recordSession(home, 'session_elsewhere', ['run_elsewhere'], elsewhere);
    await utimes(path.join(home, 'runs', 'run_elsewhere.jsonl'), new Date('2030-01-01'), new Date('2030-01-01'));

    const { code, stdout } = await runCli(['inspect', '--last', '--json'], { cwd: here, env: { FORGE_HOME: home } });
    expect(code).toBe(0);
    const report = parseReport(stdout);
    expect(report.target).toEqual({
      kind: 'last',
      argument: '--last',
      sessionId: 'session_here',
      files: [path.join(home, 'runs', 'run_here_second.jsonl')],
    });
    expect(report.runs[0]?.runId).toBe('run_here_second');
  });

  it('takes a unique prefix of a run or session id, and lists the candidates of an ambiguous one', async () => {
    const home = await forgeHome();
    await recordRun(home, { runId: 'run_alpha_1', steps: toolRunSteps });
    await recordRun(home, { runId: 'run_alpha_2', steps: toolRunSteps });
    await recordRun(home, { runId: 'run_beta', sessionId: 'session_gamma', steps: toolRunSteps });
    await recordSession(home, 'session_gamma', ['run_beta']);

    expect(parseReport((await inspect(home, ['run_b', '--json'])).stdout).target).toMatchObject({
      kind: 'run',
      argument: 'run_b',
    });
    expect(parseReport((await inspect(home, ['session_g', '--json'])).stdout).target).toMatchObject({
      kind: 'session',
      sessionId: 'session_gamma',
    });
    const ambiguous = await inspect(home, ['run_alpha']);
    expect(ambiguous.stderr).toBe(
      "forge: error: 'run_alpha' matches 2 runs and sessions: run_alpha_1, run_alpha_2; give more of the id\n",
    );
    expect(ambiguous.code).toBe(2);
  });

  it('takes a trace file by path, relative to the working directory', async () => {
    const home = await forgeHome();
    const { file } = await recordRun(home, { runId: 'run_copied', steps: toolRunSteps });
    await mkdir(path.join(home, 'elsewhere'));
    await copyFile(file, path.join(home, 'elsewhere', 'saved trace.jsonl'));

    const { code, stdout } = await runCli(['inspect', 'elsewhere/saved trace.jsonl', '--json'], {
      cwd: home,
      env: { FORGE_HOME: path.join(home, 'nowhere') },
    });
    expect(code).toBe(0);
    expect(parseReport(stdout).runs[0]?.runId).toBe('run_copied');
  });

  it('honours --forge-home over FORGE_HOME', async () => {
    const home = await forgeHome();
    await recordRun(home, { runId: 'run_flagged', steps: toolRunSteps });
    const { code } = await runCli(['inspect', 'run_flagged', '--forge-home', home], {
      cwd: home,
      env: { FORGE_HOME: path.join(home, 'nowhere') },
    });
    expect(code).toBe(0);
  });

  it.each([
    [
      'an unknown id',
      ['run_nope'],
      /^forge: error: no run or session 'run_nope' in .*; check the id, set FORGE_HOME, or use 'forge inspect --last' for this workspace's newest run\n$/,
    ],
    [
      'an id that is not safe and no such file',
      ['../../etc/passwd-nope'],
      /^forge: error: there is no file .*passwd-nope, and '..\/..\/etc\/passwd-nope' is not a run or session id either\. Invalid run or session id/,
    ],
    [
      'nothing to inspect',
      [],
      /^forge: error: say what to inspect: a run id, a session id or a trace file, or --last for the newest run\n$/,
    ],
    [
      'both --last and an id',
      ['--last', 'run_x'],
      /^forge: error: give either --last or a run, session or trace file, not both/,
    ],
    [
      '--last with no session in this workspace',
      ['--last'],
      /^forge: error: --last found no earlier session for .*; run 'forge sessions list', then 'forge inspect <session-id>'\n$/,
    ],
    ['a directory', ['.'], /^forge: error: .* is a directory; give a trace file/],
  ])('exits 2 for %s', async (_name, args, message) => {
    const home = await forgeHome();
    const { code, stdout, stderr } = await inspect(home, args);
    expect(stderr).toMatch(message);
    expect(stdout).toBe('');
    expect(code).toBe(2);
  });
});
