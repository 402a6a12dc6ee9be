import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, temporaryDirectory } from '../test-support/cli-harness.js';
import { recordRun, recordSession } from './trace-fixtures.test-helpers.js';

/* `forge inspect <session>` at scale (issue 33): one line per run, newest first, one run in full. */

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

/** A session of `count` one-step runs with traces, `run_00` the oldest. */
async function sessionOfRuns(count: number): Promise<{ home: string; runIds: string[] }> {
  const directory = await temporaryDirectory('forge-inspect-view-');
  cleanups.push(directory.remove);
  const runIds = Array.from({ length: count }, (_, index) => `run_${String(index).padStart(2, '0')}`);
  for (const runId of runIds)
    await recordRun(directory.path, {
      runId,
      sessionId: 'session_many',
      steps: [{ text: `answer of ${runId}`, usage: { inputTokens: 100 } }],
    });
  await recordSession(directory.path, 'session_many', runIds);
  return { home: directory.path, runIds };
}

const inspect = (home: string, args: readonly string[]) =>
  runCli(['inspect', 'session_many', ...args], { cwd: home, env: { FORGE_HOME: home } });

describe('forge inspect of a session with many runs', () => {
  it('lists the newest runs one line each, says how many are older, and shows the newest in full', async () => {
    const { home, runIds } = await sessionOfRuns(25);
    const { code, stdout } = await inspect(home, []);
    expect(code).toBe(0);
    const listed = runIds.filter((id) => new RegExp(`^  ${id} `, 'm').test(stdout));
    expect(listed).toEqual(runIds.slice(5));
    expect(stdout.indexOf('  run_24 ')).toBeLessThan(stdout.indexOf('  run_05 '));
    expect(stdout).toContain('… 5 older runs; --limit <n> lists more');
    expect(stdout.match(/^Run run_\d+/gm)).toEqual(['Run run_24']);

    const limited = await inspect(home, ['--limit', '3', '--run', 'run_07']);
    expect(runIds.filter((id) => new RegExp(`^  ${id} `, 'm').test(limited.stdout))).toEqual([
      'run_22',
      'run_23',
      'run_24',
    ]);
    expect(limited.stdout.match(/^Run run_\d+/gm)).toEqual(['Run run_07']);
    const unknown = await inspect(home, ['--run', 'run_99']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("--run 'run_99': the session session_many has no run with a trace");
  });

  it("shows each run's cached share of its input in the list, as the run's own usage line does", async () => {
    const directory = await temporaryDirectory('forge-inspect-view-');
    cleanups.push(directory.remove);
    await recordRun(directory.path, {
      runId: 'run_cached',
      sessionId: 'session_many',
      steps: [{ text: 'answer', usage: { inputTokens: 1000, cacheReadTokens: 834 } }],
    });
    await recordSession(directory.path, 'session_many', ['run_cached']);
    const { code, stdout } = await inspect(directory.path, []);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^ {2}run_cached .* 1,000 +83% /m);
    expect(stdout).toContain('cached 834 (83%)');
  });

  it('writes an HTML page that lists the runs and draws one, readable by its owner only', async () => {
    const { home } = await sessionOfRuns(25);
    const page = path.join(home, 'report.html');
    const { code } = await inspect(home, ['--html', page]);
    expect(code).toBe(0);
    expect((await stat(page)).mode & 0o777).toBe(0o600);
    const html = await readFile(page, 'utf8');
    expect(html.match(/<tr data-run-id=/g)).toHaveLength(25);
    expect(html.match(/<section class="run"/g)).toHaveLength(1);
    expect(html).toContain('data-run-id="run_24"');
  });
});
