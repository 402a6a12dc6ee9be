import { eventEnvelopeSchema } from '@forge/core/internals';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../main.js';
import { createTestIo, runCli, temporaryDirectory } from '../test-support/cli-harness.js';
import type { InspectReport } from './report.js';
import {
  codexRunEvents,
  COMPACTION_CHECKPOINT_HASH,
  compactionRunEvents,
  envelopeLines,
  recordRun,
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

const inspect = (home: string, args: readonly string[], env: Record<string, string> = {}) =>
  runCli(['inspect', ...args], { cwd: home, env: { FORGE_HOME: home, ...env } });

function parseReport(stdout: string): InspectReport {
  return JSON.parse(stdout) as InspectReport;
}

const ESCAPE = '\u001b';

function withoutColour(text: string): string {
  return text
    .split(ESCAPE)
    .map((piece, index) => (index === 0 ? piece : piece.replace(/^\[\d+m/, '')))
    .join('');
}

/** The events of one type in a trace file, in order; every line must be a core event as its schema defines it. */
async function traceEvents(file: string, type: string): Promise<Record<string, unknown>[]> {
  const lines = (await readFile(file, 'utf8')).split('\n').filter((line) => line.length > 0);
  for (const line of lines)
    expect(eventEnvelopeSchema.safeParse(JSON.parse(line)).error?.issues ?? [], line).toEqual([]);
  return lines
    .map((line) => (JSON.parse(line) as { event: Record<string, unknown> }).event)
    .filter((event) => event.type === type);
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
    expect(stdout).toContain('  engine       native\n');
    expect(stdout).toContain('  model        scripted:inspect-test\n');
    expect(stdout).toContain('  status       completed\n');
    expect(stdout).toContain('  steps        4 of 25 allowed\n');
    expect(stdout).toContain('  tools        5 calls (3 advertised: read_file, run_command, edit_file)\n');
    expect(stdout).toContain(`  instructions sha256 ${TOOL_RUN_INSTRUCTIONS_HASH}\n`);
    expect(stdout).toMatch(
      /\n {2}window {7}128,000 tokens \(table, estimated by conservative-fallback\); [\d,]+ for input after the output reserve; context mode warn\n/,
    );

    // The table holds, step by step, the numbers the run's events carry, in aligned columns.
    const [run] = parseReport((await inspect(home, ['run_tools', '--json'])).stdout).runs;
    const header = lines[lines.indexOf('Budget per step') + 1] ?? '';
    expect(header.trim().split(/\s{2,}/)).toEqual([
      'step',
      'instructions',
      'request',
      'continuation',
      'tool schemas',
      'overhead',
      'estimate',
      'input',
      'cached',
      'error',
      'note',
    ]);
    const rows = lines.slice(lines.indexOf('Budget per step') + 2, lines.indexOf('Budget per step') + 6);
    const number = (value: number | undefined) => (value ?? 0).toLocaleString('en-US');
    expect(rows.map((row) => row.trim().split(/\s+/))).toEqual(
      (run?.budget ?? []).map((step) => [
        String(step.step),
        ...['instructions', 'request', 'continuation', 'toolSchemas', 'overhead'].map((key) =>
          number(step.categories?.[key]),
        ),
        number(step.estimatedTokens),
        number(step.reportedInputTokens),
        number(step.cachedInputTokens),
        `${(step.errorPercent ?? 0).toFixed(1)}%`,
      ]),
    );
    for (const row of rows) expect(row.length).toBe(header.indexOf('  note'));

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

  it('--json emits the same data as one JSON document, matching the trace step by step', async () => {
    const home = await forgeHome();
    const { file } = await recordRun(home, { runId: 'run_tools', sessionId: 'session_tools', steps: toolRunSteps });

    const { code, stdout, stderr } = await inspect(home, ['run_tools', '--json']);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout.endsWith('\n')).toBe(true);
    const report = parseReport(stdout);
    expect(report.target).toEqual({ kind: 'run', argument: 'run_tools', files: [file] });
    expect(report.problems).toEqual([]);
    expect(report.runs).toHaveLength(1);
    const [run] = report.runs;
    expect(run).toMatchObject({
      runId: 'run_tools',
      sessionId: 'session_tools',
      engine: 'native',
      model: { provider: 'scripted', modelId: 'inspect-test' },
      status: 'completed',
      steps: 4,
      maxSteps: 25,
      instructionsHash: TOOL_RUN_INSTRUCTIONS_HASH,
      advertisedTools: ['read_file', 'run_command', 'edit_file'],
      window: { tokens: 128_000, source: 'table', estimationMethod: 'conservative-fallback', mode: 'warn' },
      compactions: [],
      stops: [],
    });

    const budgeted = await traceEvents(file, 'context.budgeted');
    const completed = await traceEvents(file, 'model.step.completed');
    expect(budgeted).toHaveLength(4);
    expect(run?.budget.map((row) => row.step)).toEqual([1, 2, 3, 4]);
    for (const [index, row] of (run?.budget ?? []).entries()) {
      const estimate = budgeted[index]?.estimate as { tokens: number; categories: Record<string, number> };
      const usage = completed[index]?.usage as { inputTokens: number; cacheReadTokens: number };
      expect(row).toMatchObject({
        estimatedTokens: estimate.tokens,
        categories: estimate.categories,
        reportedInputTokens: usage.inputTokens,
        cachedInputTokens: usage.cacheReadTokens,
      });
      expect(row.errorPercent).toBe(
        Math.round(((estimate.tokens - usage.inputTokens) / usage.inputTokens) * 1000) / 10,
      );
      // The scripted provider reports the fake tokenizer's count plus 5 % (rounded).
      expect(row.errorPercent).toBeGreaterThan(-6);
      expect(row.errorPercent).toBeLessThan(-3);
    }
    expect(run?.usage.inputTokens).toBe(
      completed.reduce((sum, event) => sum + (event.usage as { inputTokens: number }).inputTokens, 0),
    );

    expect(run?.toolCalls.total).toBe(5);
    expect(run?.toolCalls.byTool.map((tool) => [tool.toolName, tool.calls, tool.outcomes])).toEqual([
      ['read_file', 2, { ok: 2 }],
      ['run_command', 2, { error: 1, ok: 1 }],
      ['edit_file', 1, { denied: 1 }],
    ]);
    expect(run?.toolCalls.slowest[0]).toEqual({
      step: 2,
      toolCallId: 'call_test_1',
      toolName: 'run_command',
      outcome: 'error',
      durationMs: 1510,
    });
    expect(run?.toolCalls.notOk.map((call) => [call.toolCallId, call.outcome])).toEqual([
      ['call_test_1', 'error'],
      ['call_edit', 'denied'],
    ]);
  });

  it('reports a step-limited run and a failed run as stops', async () => {
    const home = await forgeHome();
    const looping = Array.from({ length: 3 }, (_, index) => ({
      toolCalls: [{ toolName: 'read_file', input: { path: `f${index}.ts` } }],
    }));
    await recordRun(home, { runId: 'run_limited', steps: looping, maxSteps: 2 });
    await recordRun(home, {
      runId: 'run_broken',
      steps: [{ text: 'Half an ans', error: new Error('connection reset by peer') }],
    });

    const limited = parseReport((await inspect(home, ['run_limited', '--json'])).stdout).runs[0];
    expect(limited?.status).toBe('step_limit');
    expect(limited?.stops).toEqual([
      { step: 2, kind: 'step_limit', reason: 'used all 2 steps it was allowed without giving a final answer' },
    ]);

    const broken = await inspect(home, ['run_broken']);
    expect(broken.code).toBe(0);
    expect(broken.stdout).toContain('  status       failed\n');
    expect(broken.stdout).toContain('  error        connection reset by peer (unexpected)\n');
    expect(broken.stdout).toContain(
      'Limit and guard stops\n  step  kind    reason\n     1  failed  connection reset by peer (unexpected)\n',
    );
    expect(broken.stdout).toMatch(/\n {5}1 .* {2}failed: unexpected\n/);
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
      '  step  instructions  checkpoint  history  request  continuation  tool schemas  overhead  estimate   input  cached  error  note',
      '     1           900           0    6,000      120             0         1,400        60     8,480   8,800       0  -3.6%',
      '     2           900           0    6,000      120         3,500         1,400        60    11,980  11,700   8,192  +2.4%',
      '     3           900       1,100      800      120         3,500         1,400        60     7,880   8,000       0  -1.5%  compacted, warning',
      '     4           900       1,100      800      120         9,800         1,400        60    14,180  14,500   7,900  -2.2%',
    ]);
    expect(stdout).toContain('  2.4% mean absolute estimate error');
    expect(stdout).toContain('  window       16,000 tokens (table, estimated by conservative-fallback)\n');
    expect(stdout).toContain('  status       limit_reached\n');

    const compactions = lines.slice(lines.indexOf('Compactions (2)') + 1, lines.indexOf('Compactions (2)') + 4);
    expect(compactions).toEqual([
      '  before step  outcome    strategy     reclaimed          tokens  kept verbatim  checkpoint    reason',
      '            3  completed  forge-state      5,200  13,100 → 7,900          4,300  9f2c41d07be3',
      '            5  failed     forge-state          —               —              —  —             no progress: reclaimed 300 tokens, less than the 8,000 minimum',
    ]);
    expect(stdout).toContain('\nfiles in hand after the compaction before step 3: README.md\n');
    expect(stdout).toContain(
      'Limit and guard stops\n  step  kind   reason\n     5  guard  The request needs 16,400 tokens but 14,000 are available after the reserve. (no_progress)\n',
    );
  });

  it('shows what the coverage check repaired on the compaction it belongs to, in text and --json', async () => {
    const home = await forgeHome();
    const coverage = {
      type: 'context.checkpoint.coverage',
      version: 1,
      step: 3,
      trigger: 'threshold',
      strategy: 'model-structured',
      outcome: 'repaired',
      items: [
        { kind: 'constraint', seq: 0, text: 'do not change the test file' },
        { kind: 'constraint', seq: 0, text: 'keep the public API of src/math.js unchanged' },
        { kind: 'changed_file', seq: 7, text: 'src/math.js' },
        { kind: 'request', seq: 9, text: 'Now add subtract()' },
      ],
      missingCount: 4,
      checkpointId: 'checkpoint_1',
    };
    const events = compactionRunEvents();
    const started = events.findIndex((event) => event.type === 'context.compaction.started');
    await writeTraceLines(
      home,
      'run_covered',
      envelopeLines('run_covered', [...events.slice(0, started + 1), coverage, ...events.slice(started + 1)]),
    );
    const { stdout } = await inspect(home, ['run_covered']);
    expect(stdout).toMatch(
      /\n {12}3 {2}completed .* 9f2c41d07be3 {2}coverage repaired 4 missing: constraint #0, constraint #0, changed file #7, 1 more\n/,
    );
    expect(stdout).not.toContain('context.checkpoint.coverage');
    const [run] = parseReport((await inspect(home, ['run_covered', '--json'])).stdout).runs;
    expect(run?.compactions[0]).toMatchObject({
      outcome: 'completed',
      coverage: 'coverage repaired 4 missing: constraint #0, constraint #0, changed file #7, 1 more',
    });
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
      keptVerbatimTokens: 4300,
      checkpointHash: COMPACTION_CHECKPOINT_HASH,
      checkpointId: 'checkpoint_1',
      filesInHand: ['README.md'],
    });
    expect(run?.budget[2]).toMatchObject({
      step: 3,
      estimatedTokens: 7880,
      categories: {
        instructions: 900,
        request: 120,
        toolSchemas: 1400,
        overhead: 60,
        history: 800,
        checkpoint: 1100,
        continuation: 3500,
      },
      reportedInputTokens: 8000,
      errorPercent: -1.5,
      warned: true,
    });
    expect(run?.window).toEqual({ tokens: 16_000, source: 'table', estimationMethod: 'conservative-fallback' });
    expect(run?.meanAbsoluteErrorPercent).toBe(2.4);
    expect(run?.stops).toEqual([
      {
        step: 5,
        kind: 'guard',
        reason: 'The request needs 16,400 tokens but 14,000 are available after the reserve. (no_progress)',
      },
    ]);
  });
});

describe('other stops and engines', () => {
  it('shows a real run that stopped at the context limit before contacting the provider', async () => {
    const home = await forgeHome();
    const { result, file } = await recordRun(home, {
      runId: 'run_tight',
      steps: toolRunSteps,
      contextWindowTokens: 300,
    });
    expect(result.status).toBe('limit_reached');
    const [limit] = await traceEvents(file, 'context.limit_reached');

    const report = parseReport((await inspect(home, ['run_tight', '--json'])).stdout);
    const [run] = report.runs;
    expect(run?.status).toBe('limit_reached');
    expect(run?.steps).toBe(0);
    expect(run?.stops).toEqual([
      { step: 1, kind: 'context_limit', reason: `${String(limit?.message)} (${String(limit?.reason)})` },
    ]);
    expect(run?.budget.map((row) => [row.step, row.reportedInputTokens])).toEqual([[1, undefined]]);
    const text = (await inspect(home, ['run_tight'])).stdout;
    expect(text).toContain(
      `Limit and guard stops\n  step  kind           reason\n     1  context limit  ${String(limit?.message)}`,
    );
    expect(text).toMatch(/\n {5}1 .* {2}stopped\n/);
  });

  it('reads a Codex engine run: usage per model response, the wrapper estimate and the compaction Codex made', async () => {
    const home = await forgeHome();
    await writeTraceLines(home, 'run_codex', envelopeLines('run_codex', codexRunEvents()));
    const [run] = parseReport((await inspect(home, ['run_codex', '--json'])).stdout).runs;
    expect(run).toMatchObject({
      engine: 'codex',
      steps: 2,
      status: 'completed',
      window: { tokens: 272_000, source: 'codex' },
    });
    expect(run?.maxSteps).toBeUndefined();
    expect(run?.budget).toEqual([
      expect.objectContaining({
        step: 1,
        estimatedTokens: 2100,
        estimateCovers: 'wrapper',
        reportedInputTokens: 14_000,
        cachedInputTokens: 0,
      }),
      expect.objectContaining({ step: 2, reportedInputTokens: 9000, cachedInputTokens: 8000 }),
    ]);
    expect(run?.budget[0]?.errorPercent).toBeUndefined();
    expect(run?.compactions).toEqual([
      { beforeStep: 2, outcome: 'completed', strategy: 'codex (engine-owned)', checkpointId: 'item_compaction' },
    ]);
    const text = (await inspect(home, ['run_codex'])).stdout;
    expect(text).toContain('  engine       codex\n');
    expect(text).toContain('  steps        2\n');
    expect(text).toContain("estimate: Forge's part only");
  });

  it('reads a Codex run traced before its wrapper estimate had a name of its own (context.budgeted with engine codex) the same way', async () => {
    const home = await forgeHome();
    const renamed = (events: ReturnType<typeof codexRunEvents>) =>
      events.map((event) =>
        event.type === 'codex.context.budgeted' ? { ...event, type: 'context.budgeted', engine: 'codex' } : event,
      );
    await writeTraceLines(home, 'run_codex_old', envelopeLines('run_codex_old', renamed(codexRunEvents())));
    await writeTraceLines(home, 'run_codex_new', envelopeLines('run_codex_new', codexRunEvents()));
    const [old] = parseReport((await inspect(home, ['run_codex_old', '--json'])).stdout).runs;
    const [current] = parseReport((await inspect(home, ['run_codex_new', '--json'])).stdout).runs;
    expect(old).toMatchObject({ engine: 'codex', steps: 2, status: 'completed' });
    expect(old?.budget).toEqual(current?.budget);
    expect(old?.budget[0]).toMatchObject({ step: 1, estimatedTokens: 2100, estimateCovers: 'wrapper' });
    expect((await inspect(home, ['run_codex_old'])).stdout).toContain("estimate: Forge's part only");
  });

  it('says when the estimator was flagged as unsafe for automatic compaction', async () => {
    const home = await forgeHome();
    const flagged = {
      type: 'context.estimator.flagged',
      step: 2,
      model: { provider: 'scripted', modelId: 'budget-test' },
      message:
        'scripted:budget-test undercounted by more than the buffer 3 times; automatic compaction will not rely on it.',
    };
    await writeTraceLines(
      home,
      'run_flagged',
      envelopeLines('run_flagged', [...compactionRunEvents().slice(0, 9), flagged]),
    );
    expect((await inspect(home, ['run_flagged'])).stdout).toContain(`  estimator    ${flagged.message}\n`);
    expect(parseReport((await inspect(home, ['run_flagged', '--json'])).stdout).runs[0]?.estimatorFlagged).toBe(
      flagged.message,
    );
  });
});

describe('damaged traces', () => {
  it('tolerate a torn last line with a warning and report everything before it', async () => {
    const home = await forgeHome();
    const lines = envelopeLines('run_torn', compactionRunEvents());
    const file = await writeTraceLines(home, 'run_torn', lines, { tornTail: '{"schemaVersion":1,"runId":"run_to' });

    const text = await inspect(home, ['run_torn']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      `Trace problems (1)\n  Ignored an incomplete last line ${lines.length + 1} of ${file}`,
    );

    const json = await inspect(home, ['run_torn', '--json']);
    const report = parseReport(json.stdout);
    expect(report.problems).toEqual([expect.objectContaining({ kind: 'torn_tail', file, line: lines.length + 1 })]);
    expect(json.stderr).toContain(`forge: warning: Ignored an incomplete last line ${lines.length + 1}`);
    expect(report.runs[0]?.steps).toBe(4);
    expect(report.runs[0]?.compactions).toHaveLength(2);
  });

  it('show a run whose process died during a tool call as unfinished', async () => {
    const home = await forgeHome();
    const lines = envelopeLines('run_died', compactionRunEvents().slice(0, 5));
    await writeTraceLines(home, 'run_died', lines, { tornTail: '{"schemaVersion":1,"runId":"run_died","seq' });
    const report = parseReport((await inspect(home, ['run_died', '--json'])).stdout);
    const [run] = report.runs;
    expect(run?.status).toBe('unfinished');
    expect(run?.durationMs).toBe(1000);
    expect(run?.toolCalls.notOk).toEqual([
      { step: 1, toolCallId: 'call_1', toolName: 'read_file', outcome: 'unfinished' },
    ]);
    expect(report.problems.map((problem) => problem.kind)).toEqual(['torn_tail']);
    expect((await inspect(home, ['run_died'])).stdout).toContain('  status       unfinished\n');
  });

  it('report malformed lines with their numbers, skip them and go on', async () => {
    const home = await forgeHome();
    const lines = envelopeLines('run_bad', compactionRunEvents());
    const damaged = [
      ...lines.slice(0, 2),
      'this is not json',
      ...lines.slice(2, 4),
      JSON.stringify({
        schemaVersion: 1,
        runId: 'run_bad',
        sequence: 99,
        timestamp: 'x',
        event: { type: 'model.step.started', step: 'two' },
      }),
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

  it('report a blank line and a damaged last line that ends with a newline as damage, not as a torn tail (issue 17)', async () => {
    const home = await forgeHome();
    const lines = envelopeLines('run_blank', compactionRunEvents());
    await writeTraceLines(home, 'run_blank', [
      ...lines.slice(0, 3),
      '',
      ...lines.slice(3),
      '{"schemaVersion":1,"runId":"run_blank","seq',
    ]);
    const report = parseReport((await inspect(home, ['run_blank', '--json'])).stdout);
    expect(report.problems.map((problem) => [problem.kind, problem.line])).toEqual([
      ['malformed_line', 4],
      ['malformed_line', lines.length + 2],
    ]);
    expect(report.problems[0]?.message).toContain('the line is blank');
  });

  it('count event types this Forge does not know and skip lines from a newer schema', async () => {
    const home = await forgeHome();
    const lines = envelopeLines('run_future', [
      ...compactionRunEvents().slice(0, 4),
      { type: 'context.cache.evicted', bytes: 10 },
      { type: 'context.cache.evicted', bytes: 12 },
    ]);
    const newer = JSON.stringify({
      schemaVersion: 9,
      runId: 'run_future',
      sequence: 50,
      timestamp: '2030-01-01T00:00:00.000Z',
      event: { type: 'run.started' },
    });
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
    expect(failed.stderr).toMatch(
      /^forge: error: could not write the HTML report to .*blocker\/report\.html \(.*\); choose a writable path for --html\n$/,
    );
  });
});
