import { copyFile, mkdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../main.js';
import { createTestIo, runCli, temporaryDirectory } from '../test-support/cli-harness.js';
import type { InspectReport } from './report.js';
import {
  COMPACTION_CHECKPOINT_HASH,
  compactionRunEvents,
  envelopeLines,
  recordRun,
  recordSession,
  TOOL_RUN_INSTRUCTIONS_HASH,
  toolRunSteps,
  writeTraceLines,
} from './trace-fixtures.test-helpers.js';

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

const ESCAPE = '\u001b';

function withoutColour(text: string): string {
  return text.split(ESCAPE).map((piece, index) => (index === 0 ? piece : piece.replace(/^\[\d+m/, ''))).join('');
}

describe('forge inspect on a real run (runAgent + ScriptedModel + TraceWriter)', () => {
  it('prints the summary, the per-step table and the tool calls as aligned plain text', async () => {
    const home = await forgeHome();
    await recordRun(home, { runId: 'run_tools', sessionId: 'session_tools', steps: toolRunSteps });

    const { code, stdout, stderr } = await inspect(home, ['run_tools']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).not.toContain(ESCAPE);
    const lines = stdout.split('\n');
    expect(lines[0]).toBe('Run run_tools  (session session_tools)');
    expect(stdout).toContain('  engine       forge\n');
    expect(stdout).toContain('  model        scripted:inspect-test\n');
    expect(stdout).toContain('  status       completed\n');
    expect(stdout).toContain('  steps        4 of 25 allowed\n');
    expect(stdout).toContain('  tools        5 calls (3 advertised: read_file, run_command, edit_file)\n');
    expect(stdout).toContain(`  instructions sha256 ${TOOL_RUN_INSTRUCTIONS_HASH}\n`);
    expect(stdout).toContain('  usage        input 8,000 · cached 4,864 · output 210\n');

    const table = lines.slice(lines.indexOf('Budget per step') + 1, lines.indexOf('Budget per step') + 6);
    expect(table).toEqual([
      '  step  estimate  reported  cached  error  note',
      '     1         —     1,200       0      —',
      '     2         —     1,900   1,024      —',
      '     3         —     2,300   1,792      —',
      '     4         —     2,600   2,048      —',
    ]);

    const tools = lines.slice(lines.indexOf('Tool calls (5)') + 1, lines.indexOf('Tool calls (5)') + 5);
    expect(tools).toEqual([
      '  tool         calls  outcomes       total time  slowest',
      '  read_file        2  2 ok                60 ms    30 ms',
      '  run_command      2  1 ok, 1 error       2.3 s    1.5 s',
      '  edit_file        1  1 denied            10 ms    10 ms',
    ]);
    const notOk = stdout.slice(stdout.indexOf('  not ok (2)'));
    expect(notOk).toContain('       2  run_command  error    1.5 s  call_test_1');
    expect(notOk).toContain('       2  edit_file    denied   10 ms  call_edit');
    expect(stdout).toContain('Compactions  none');
    expect(stdout).toContain('Limit and guard stops  none');
  });

  it('--json emits the same data as one JSON document', async () => {
    const home = await forgeHome();
    await recordRun(home, { runId: 'run_tools', sessionId: 'session_tools', steps: toolRunSteps });

    const { code, stdout, stderr } = await inspect(home, ['run_tools', '--json']);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout.endsWith('\n')).toBe(true);
    const report = parseReport(stdout);
    expect(report.target).toEqual({ kind: 'run', argument: 'run_tools', files: [path.join(home, 'runs', 'run_tools.jsonl')] });
    expect(report.problems).toEqual([]);
    expect(report.runs).toHaveLength(1);
    const [run] = report.runs;
    expect(run).toMatchObject({
      runId: 'run_tools',
      sessionId: 'session_tools',
      engine: 'forge',
      model: { provider: 'scripted', modelId: 'inspect-test' },
      status: 'completed',
      steps: 4,
      maxSteps: 25,
      instructionsHash: TOOL_RUN_INSTRUCTIONS_HASH,
      advertisedTools: ['read_file', 'run_command', 'edit_file'],
      usage: { inputTokens: 8000, cacheReadTokens: 4864, outputTokens: 210 },
      compactions: [],
      stops: [],
    });
    expect(run?.budget.map((row) => [row.step, row.reportedInputTokens, row.cachedInputTokens, row.toolCalls, row.finishReason])).toEqual([
      [1, 1200, 0, 2, 'tool-calls'],
      [2, 1900, 1024, 2, 'tool-calls'],
      [3, 2300, 1792, 1, 'tool-calls'],
      [4, 2600, 2048, 0, 'stop'],
    ]);
    expect(run?.toolCalls.total).toBe(5);
    expect(run?.toolCalls.byTool.map((tool) => [tool.toolName, tool.calls, tool.outcomes])).toEqual([
      ['read_file', 2, { ok: 2 }],
      ['run_command', 2, { error: 1, ok: 1 }],
      ['edit_file', 1, { denied: 1 }],
    ]);
    expect(run?.toolCalls.slowest[0]).toEqual({ step: 2, toolCallId: 'call_test_1', toolName: 'run_command', outcome: 'error', durationMs: 1510 });
    expect(run?.toolCalls.notOk.map((call) => [call.toolCallId, call.outcome])).toEqual([
      ['call_test_1', 'error'],
      ['call_edit', 'denied'],
    ]);
  });

  it('reports a step-limited run and a failed run as stops', async () => {
    const home = await forgeHome();
    const looping = Array.from({ length: 3 }, (_, index) => ({ toolCalls: [{ toolName: 'read_file', input: { path: `f${index}.ts` } }] }));
    await recordRun(home, { runId: 'run_limited', steps: looping, maxSteps: 2 });
    await recordRun(home, { runId: 'run_broken', steps: [{ text: 'Half an ans', error: new Error('connection reset by peer') }] });

    const limited = parseReport((await inspect(home, ['run_limited', '--json'])).stdout).runs[0];
    expect(limited?.status).toBe('step_limit');
    expect(limited?.stops).toEqual([{ step: 2, kind: 'step_limit', reason: 'used all 2 steps it was allowed without giving a final answer' }]);

    const broken = await inspect(home, ['run_broken']);
    expect(broken.code).toBe(0);
    expect(broken.stdout).toContain('  status       failed\n');
    expect(broken.stdout).toContain('  error        connection reset by peer (unexpected)\n');
    expect(broken.stdout).toContain('Limit and guard stops\n  step  kind    reason\n     1  failed  connection reset by peer (unexpected)\n');
    expect(broken.stdout).toContain('     1         —         —       —      —  failed: unexpected\n');
  });
});

describe('forge inspect on a budgeted run with compactions and a limit stop', () => {
  it('shows the estimate by category beside the reported input, the compactions and the guard stop', async () => {
    const home = await forgeHome();
    await writeTraceLines(home, 'run_compact', envelopeLines('run_compact', compactionRunEvents()));

    const { code, stdout } = await inspect(home, ['run_compact']);
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    const start = lines.indexOf('Budget per step') + 1;
    expect(lines.slice(start, start + 5)).toEqual([
      '  step  instructions  checkpoint  history  request  continuation  tool schemas  overhead  estimate  reported  cached  error  note',
      '     1           900           0    6,000      120             0         1,400        60     8,480     8,800       0  -3.6%',
      '     2           900           0    6,000      120         3,500         1,400        60    11,980    11,700   8,192  +2.4%',
      '     3           900       1,100      800      120         3,500         1,400        60     7,880     8,000       0  -1.5%  compacted, warning',
      '     4           900       1,100      800      120         9,800         1,400        60    14,180    14,500   7,900  -2.2%',
    ]);
    expect(stdout).toContain('  2.4% mean absolute estimate error');
    expect(stdout).toContain('  window       16,000 tokens (table, estimated by conservative-fallback)\n');
    expect(stdout).toContain('  status       limit_reached\n');

    const compactions = lines.slice(lines.indexOf('Compactions (2)') + 1, lines.indexOf('Compactions (2)') + 4);
    expect(compactions).toEqual([
      '  before step  outcome    strategy     reclaimed          tokens  checkpoint    reason',
      '            3  completed  forge-state      5,200  13,100 → 7,900  9f2c41d07be3',
      '            5  failed     forge-state          —               —  —             no progress: reclaimed 300 tokens, less than the 8,000 minimum',
    ]);
    expect(stdout).toContain('Limit and guard stops\n  step  kind   reason\n     5  guard  The request needs 16,400 tokens but 14,000 are available after the reserve. (no_progress)\n');
  });

  it('--json carries the full checkpoint hash, the categories and the error per step', async () => {
    const home = await forgeHome();
    await writeTraceLines(home, 'run_compact', envelopeLines('run_compact', compactionRunEvents()));
    const [run] = parseReport((await inspect(home, ['run_compact', '--json'])).stdout).runs;
    expect(run?.compactions[0]).toEqual({
      beforeStep: 3,
      outcome: 'completed',
      strategy: 'forge-state',
      reclaimedTokens: 5200,
      tokensBefore: 13_100,
      tokensAfter: 7900,
      checkpointHash: COMPACTION_CHECKPOINT_HASH,
      checkpointId: 'checkpoint_1',
    });
    expect(run?.budget[2]).toMatchObject({
      step: 3,
      estimatedTokens: 7880,
      categories: { instructions: 900, request: 120, toolSchemas: 1400, overhead: 60, history: 800, checkpoint: 1100, continuation: 3500 },
      reportedInputTokens: 8000,
      errorPercent: -1.5,
      warned: true,
    });
    expect(run?.window).toEqual({ tokens: 16_000, source: 'table', estimationMethod: 'conservative-fallback' });
    expect(run?.meanAbsoluteErrorPercent).toBe(2.4);
    expect(run?.stops).toEqual([
      { step: 5, kind: 'guard', reason: 'The request needs 16,400 tokens but 14,000 are available after the reserve. (no_progress)' },
    ]);
  });
});

describe('damaged traces', () => {
  it('tolerate a torn last line with a warning and report everything before it', async () => {
    const home = await forgeHome();
    const lines = envelopeLines('run_torn', compactionRunEvents());
    const file = await writeTraceLines(home, 'run_torn', lines, { tornTail: '{"schemaVersion":1,"runId":"run_to' });

    const text = await inspect(home, ['run_torn']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`Trace problems (1)\n  Ignored an incomplete last line ${lines.length + 1} of ${file}`);

    const json = await inspect(home, ['run_torn', '--json']);
    const report = parseReport(json.stdout);
    expect(report.problems).toEqual([expect.objectContaining({ kind: 'torn_tail', file, line: lines.length + 1 })]);
    expect(json.stderr).toContain(`forge: warning: Ignored an incomplete last line ${lines.length + 1}`);
    expect(report.runs[0]?.steps).toBe(4);
    expect(report.runs[0]?.compactions).toHaveLength(2);
  });

  it('report malformed lines with their numbers, skip them and go on', async () => {
    const home = await forgeHome();
    const lines = envelopeLines('run_bad', compactionRunEvents());
    const damaged = [
      ...lines.slice(0, 2),
      'this is not json',
      ...lines.slice(2, 4),
      JSON.stringify({ schemaVersion: 1, runId: 'run_bad', sequence: 99, timestamp: 'x', event: { type: 'model.step.started', step: 'two' } }),
      JSON.stringify({ hello: 'world' }),
      ...lines.slice(4),
    ];
    const file = await writeTraceLines(home, 'run_bad', damaged);

    const { code, stdout } = await inspect(home, ['run_bad', '--json']);
    expect(code).toBe(0);
    const report = parseReport(stdout);
    expect(report.problems.map((problem) => [problem.kind, problem.line])).toEqual([
      ['malformed_line', 3],
      ['malformed_line', 6],
      ['malformed_line', 7],
    ]);
    expect(report.problems[0]?.message).toContain(`Line 3 of ${file}: not valid JSON`);
    expect(report.problems[1]?.message).toContain('a model.step.started event with an unexpected shape (step: ');
    expect(report.problems[2]?.message).toContain('not an event envelope at schemaVersion');
    expect(report.runs[0]?.steps).toBe(4);
    expect(report.runs[0]?.events).toBe(lines.length);
  });

  it('count event types this Forge does not know and skip lines from a newer schema', async () => {
    const home = await forgeHome();
    const lines = envelopeLines('run_future', [...compactionRunEvents().slice(0, 4), { type: 'context.cache.evicted', bytes: 10 }, { type: 'context.cache.evicted', bytes: 12 }]);
    const newer = JSON.stringify({ schemaVersion: 9, runId: 'run_future', sequence: 50, timestamp: '2030-01-01T00:00:00.000Z', event: { type: 'run.started' } });
    await writeTraceLines(home, 'run_future', [...lines, newer]);

    const { code, stdout } = await inspect(home, ['run_future', '--json']);
    expect(code).toBe(0);
    const report = parseReport(stdout);
    expect(report.runs[0]?.unknownEvents).toEqual([{ type: 'context.cache.evicted', count: 2 }]);
    expect(report.runs[0]?.status).toBe('unfinished');
    expect(report.problems).toEqual([expect.objectContaining({ kind: 'newer_schema' })]);
    expect(report.problems[0]?.message).toContain('event schema 9, newer than this Forge reads (1)');
    expect((await inspect(home, ['run_future'])).stdout).toContain('Other events  context.cache.evicted ×2');
  });

  it('exit 1 when a trace holds no run events at all', async () => {
    const home = await forgeHome();
    const file = await writeTraceLines(home, 'run_empty', []);
    const { code, stderr } = await inspect(home, ['run_empty']);
    expect(code).toBe(1);
    expect(stderr).toBe(`forge: error: no run events in ${file}\n`);
  });
});

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

describe('terminal colour', () => {
  async function onTerminal(home: string, env: Record<string, string>): Promise<string> {
    const test = createTestIo({ cwd: home, env: { FORGE_HOME: home, ...env } });
    test.stdout.isTTY = true;
    test.stdin.end();
    expect(await main(['node', 'forge', 'inspect', 'run_broken'], test.io)).toBe(0);
    return test.stdout.text;
  }

  it('colours a terminal and stays plain under NO_COLOR', async () => {
    const home = await forgeHome();
    await recordRun(home, { runId: 'run_broken', steps: [{ error: new Error('boom') }] });
    const coloured = await onTerminal(home, {});
    expect(coloured).toContain(ESCAPE);
    expect(coloured).toContain('\u001b[31mfailed\u001b[39m');
    const plain = await onTerminal(home, { NO_COLOR: '1' });
    expect(plain).not.toContain(ESCAPE);
    expect(plain).toBe(withoutColour(coloured));
  });
});

describe('--html', () => {
  it('writes the page and says where; an unwritable path exits 1 with the reason', async () => {
    const home = await forgeHome();
    await recordRun(home, { runId: 'run_page', steps: toolRunSteps });
    const written = await inspect(home, ['run_page', '--html', 'report.html']);
    expect(written.code).toBe(0);
    expect(written.stderr).toBe(`forge: wrote the HTML report to ${path.join(home, 'report.html')}\n`);
    expect(written.stdout).toContain('Run run_page');

    await writeFile(path.join(home, 'blocker'), '');
    const failed = await inspect(home, ['run_page', '--html', 'blocker/report.html']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^forge: error: could not write the HTML report to .*blocker\/report\.html \(.*\); choose a writable path for --html\n$/);
  });
});
