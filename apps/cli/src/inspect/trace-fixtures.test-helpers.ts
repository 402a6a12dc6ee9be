import { runAgent, type ApprovalGate, type ModelRequest, type RunResult, type Tool, type Usage } from '@forge/core';
import { estimateWithFakeTokenizer, ScriptedModel, type ScriptedStep } from '@forge/core/testing';
import { createSession, createTraceWriter, ensureForgeHome, traceFile } from '@forge/persistence';
import { writeFile } from 'node:fs/promises';

/** A test clock: every reading moves it 5 ms on, and tools move it further to look slow. */
export class FakeClock {
  time = Date.parse('2025-06-02T09:30:00.000Z');
  readonly now = (): number => (this.time += 5);
  advance(milliseconds: number): void {
    this.time += milliseconds;
  }
}

function workspaceTools(clock: FakeClock): Tool[] {
  return [
    {
      name: 'read_file',
      description: 'Reads a file.',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
      risk: 'read',
      describe: (input) => `read ${JSON.stringify(input)}`,
      execute: async () => {
        clock.advance(20);
        return { output: { type: 'text', value: 'export {};' } };
      },
    },
    {
      name: 'run_command',
      description: 'Runs a command.',
      inputSchema: { type: 'object', properties: { command: { type: 'string' }, fail: { type: 'boolean' } } },
      risk: 'execute',
      execute: async (input) => {
        const failing =
          typeof input === 'object' && input !== null && (input as { readonly fail?: unknown }).fail === true;
        clock.advance(failing ? 1500 : 800);
        return failing
          ? { output: { type: 'error-text', value: 'exit code 1' } }
          : { output: { type: 'text', value: 'all tests passed' } };
      },
    },
    {
      name: 'edit_file',
      description: 'Edits a file.',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
      risk: 'write',
      execute: async () => ({ output: { type: 'text', value: 'edited' } }),
    },
  ];
}

/** Allows reads and commands, denies edits (as `--approval ask` does without a terminal). */
const denyEdits: ApprovalGate = {
  check: async (call) => (call.risk === 'write' ? { kind: 'deny', reason: 'edits need approval' } : { kind: 'allow' }),
};

export const TOOL_RUN_INSTRUCTIONS_HASH = 'c'.repeat(64);

/**
 * What the provider reports for a request: the fake tokenizer's count plus 5 % (framing a real
 * provider adds), with the part seen before served from the cache.
 */
function providerUsage(request: ModelRequest, cachedShare: number): Partial<Usage> {
  const inputTokens = Math.round(estimateWithFakeTokenizer(request).tokens * 1.05);
  return { inputTokens, cacheReadTokens: Math.floor(inputTokens * cachedShare), outputTokens: 40 };
}

/** Four steps, five tool calls: two reads, a failing command, a denied edit, a passing command. */
export const toolRunSteps: readonly ScriptedStep[] = [
  (request) => ({
    text: 'Reading the sources.',
    toolCalls: [
      { toolName: 'read_file', input: { path: 'src/a.ts' }, toolCallId: 'call_read_a' },
      { toolName: 'read_file', input: { path: 'src/b.ts' }, toolCallId: 'call_read_b' },
    ],
    usage: providerUsage(request, 0),
  }),
  (request) => ({
    text: 'Running the tests.',
    toolCalls: [
      { toolName: 'run_command', input: { command: 'npm test', fail: true }, toolCallId: 'call_test_1' },
      { toolName: 'edit_file', input: { path: 'src/a.ts' }, toolCallId: 'call_edit' },
    ],
    usage: providerUsage(request, 0.5),
  }),
  (request) => ({
    toolCalls: [{ toolName: 'run_command', input: { command: 'npm test' }, toolCallId: 'call_test_2' }],
    usage: providerUsage(request, 0.6),
  }),
  (request) => ({ text: 'The tests pass now.', usage: providerUsage(request, 0.7) }),
];

/** Runs the scripted model through `runAgent` with a real trace writer into `home`. */
export async function recordRun(
  home: string,
  options: {
    readonly runId: string;
    readonly sessionId?: string;
    readonly steps: readonly ScriptedStep[];
    readonly maxSteps?: number;
    /** The model's context window (default 128,000): small enough, the run stops at the context limit. */
    readonly contextWindowTokens?: number;
  },
): Promise<{ readonly result: RunResult; readonly file: string }> {
  const clock = new FakeClock();
  const trace = await createTraceWriter(home, options.runId);
  const result = await runAgent({
    model: new ScriptedModel(options.steps, {
      provider: 'scripted',
      modelId: 'inspect-test',
      ...(options.contextWindowTokens === undefined
        ? {}
        : { capabilities: { contextWindowTokens: options.contextWindowTokens } }),
    }),
    request: 'Fix the failing test',
    instructions: { text: 'Be careful.', sources: [], hash: TOOL_RUN_INSTRUCTIONS_HASH },
    tools: workspaceTools(clock),
    approvals: denyEdits,
    runId: options.runId,
    ...(options.sessionId === undefined ? {} : { session: { id: options.sessionId } }),
    ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
    now: clock.now,
    onEvent: trace.listener,
  });
  await trace.close();
  return { result, file: trace.file };
}

/** A session whose log records the given runs (their traces are written separately). */
export async function recordSession(
  home: string,
  sessionId: string,
  runIds: readonly string[],
  workspaceRoot: string | null = null,
): Promise<void> {
  const session = await createSession(home, { workspaceRoot, id: sessionId });
  try {
    for (const runId of runIds) {
      await session.recordRunStart({ runId });
      await session.appendMessages([{ role: 'user', content: `request of ${runId}` }], { runId });
      await session.recordRunEnd({
        runId,
        status: 'completed',
        usage: {
          inputTokens: 10,
          cacheReadTokens: 0,
          cacheWriteTokens: undefined,
          outputTokens: 2,
          reasoningTokens: undefined,
        },
      });
    }
  } finally {
    await session.close();
  }
}

export const COMPACTION_CHECKPOINT_HASH = '9f2c41d07be3aa55'.repeat(4);

type EventBody = { readonly type: string } & Record<string, unknown>;

/** Envelope lines of a run, numbered and timed the way the trace writer writes them. */
export function envelopeLines(runId: string, events: readonly EventBody[], sessionId?: string): string[] {
  const start = Date.parse('2025-06-02T10:00:00.000Z');
  return events.map((event, sequence) =>
    JSON.stringify({
      schemaVersion: 1,
      runId,
      ...(sessionId === undefined ? {} : { sessionId }),
      sequence,
      timestamp: new Date(start + sequence * 250).toISOString(),
      event,
    }),
  );
}

const WINDOW = 16_000;

function budgeted(step: number, categories: Record<string, number>): EventBody {
  const tokens = Object.values(categories).reduce((sum, value) => sum + value, 0);
  return {
    type: 'context.budgeted',
    step,
    adapter: 'scripted',
    model: { provider: 'scripted', modelId: 'budget-test' },
    estimate: { tokens, method: 'conservative-fallback', confidence: 'estimated', categories },
    contextWindowTokens: WINDOW,
    windowSource: 'table',
  };
}

const usage = (inputTokens: number, cacheReadTokens: number) => ({
  inputTokens,
  cacheReadTokens,
  cacheWriteTokens: 0,
  outputTokens: 50,
  reasoningTokens: 0,
});

/**
 * The events of a budgeted run that compacts once, warns, then stops at the context limit when a
 * second compaction reclaims too little: five steps, one tool call.
 */
export function compactionRunEvents(): EventBody[] {
  const fixed = { instructions: 900, request: 120, toolSchemas: 1400, overhead: 60 };
  return [
    {
      type: 'run.started',
      model: { provider: 'scripted', modelId: 'budget-test' },
      instructions: { hash: 'a'.repeat(64), sources: [] },
      tools: ['read_file'],
      maxSteps: 10,
      historyMessages: 12,
    },
    budgeted(1, { ...fixed, history: 6000, checkpoint: 0, continuation: 0 }),
    { type: 'model.step.started', step: 1 },
    { type: 'model.step.completed', step: 1, finishReason: 'tool-calls', usage: usage(8800, 0), toolCalls: 1 },
    { type: 'tool.call.started', step: 1, toolCallId: 'call_1', toolName: 'read_file', summary: 'read README.md' },
    {
      type: 'tool.call.completed',
      step: 1,
      toolCallId: 'call_1',
      toolName: 'read_file',
      outcome: 'ok',
      durationMs: 42,
    },
    budgeted(2, { ...fixed, history: 6000, checkpoint: 0, continuation: 3500 }),
    { type: 'model.step.started', step: 2 },
    { type: 'model.step.completed', step: 2, finishReason: 'tool-calls', usage: usage(11_700, 8192), toolCalls: 0 },
    { type: 'context.warning', step: 3, message: 'The next request uses 82% of the context window.' },
    { type: 'context.compaction.started', step: 3, strategy: 'forge-state' },
    {
      type: 'context.compaction.completed',
      step: 3,
      strategy: 'forge-state',
      reclaimedTokens: 5200,
      tokensBefore: 13_100,
      tokensAfter: 7900,
      keptVerbatimTokens: 4300,
      checkpointHash: COMPACTION_CHECKPOINT_HASH,
      checkpointId: 'checkpoint_1',
      filesInHand: ['README.md'],
    },
    budgeted(3, { ...fixed, history: 800, checkpoint: 1100, continuation: 3500 }),
    { type: 'model.step.started', step: 3 },
    { type: 'model.step.completed', step: 3, finishReason: 'tool-calls', usage: usage(8000, 0), toolCalls: 0 },
    budgeted(4, { ...fixed, history: 800, checkpoint: 1100, continuation: 9800 }),
    { type: 'model.step.started', step: 4 },
    { type: 'model.step.completed', step: 4, finishReason: 'tool-calls', usage: usage(14_500, 7900), toolCalls: 0 },
    { type: 'context.compaction.started', step: 5, strategy: 'forge-state' },
    {
      type: 'context.compaction.failed',
      step: 5,
      strategy: 'forge-state',
      reason: 'no progress: reclaimed 300 tokens, less than the 8,000 minimum',
    },
    {
      type: 'context.limit_reached',
      step: 5,
      reason: 'no_progress',
      message: 'The request needs 16,400 tokens but 14,000 are available after the reserve.',
    },
    { type: 'run.completed', status: 'limit_reached', steps: 4, usage: usage(43_000, 16_092), durationMs: 5000 },
  ];
}

/** Writes `lines` as the trace of `runId` in `home` (one line each, newline-terminated unless `tornTail`). */
export async function writeTraceLines(
  home: string,
  runId: string,
  lines: readonly string[],
  options: { readonly tornTail?: string } = {},
): Promise<string> {
  await ensureForgeHome(home);
  const file = traceFile(home, runId);
  await writeFile(file, `${lines.map((line) => `${line}\n`).join('')}${options.tornTail ?? ''}`, { mode: 0o600 });
  return file;
}

/** A Codex engine run as the Codex engine traces it: a wrapper estimate, usage per model response, a compaction Codex made. */
export function codexRunEvents(): EventBody[] {
  const breakdown = (inputTokens: number, cachedInputTokens: number) => ({
    totalTokens: inputTokens + 200,
    inputTokens,
    cachedInputTokens,
    outputTokens: 200,
    reasoningOutputTokens: 50,
  });
  return [
    {
      type: 'run.started',
      model: { provider: 'codex', modelId: 'codex-default' },
      instructions: { hash: 'b'.repeat(64), sources: [] },
      tools: [],
      maxSteps: 0,
      historyMessages: 4,
    },
    {
      type: 'codex.context.budgeted',
      estimate: {
        tokens: 2100,
        method: 'conservative-fallback',
        confidence: 'estimated',
        bytes: 6300,
        categories: { instructions: 300, checkpoint: 0, history: 1500, request: 250, overhead: 50 },
      },
      historyMessages: 4,
      hasCheckpoint: false,
      wrapperSha256: 'd'.repeat(64),
    },
    { type: 'tool.call.started', step: 1, toolCallId: 'item_1', toolName: 'codex_command', summary: 'run npm test' },
    {
      type: 'tool.call.completed',
      step: 1,
      toolCallId: 'item_1',
      toolName: 'codex_command',
      outcome: 'ok',
      durationMs: 900,
    },
    {
      type: 'codex.usage.recorded',
      usage: { turnId: 'turn_1', last: breakdown(14_000, 0), total: breakdown(14_000, 0), modelContextWindow: 272_000 },
    },
    { type: 'codex.compaction.completed', compaction: { turnId: 'turn_1', itemId: 'item_compaction' } },
    {
      type: 'codex.usage.recorded',
      usage: {
        turnId: 'turn_1',
        last: breakdown(9000, 8000),
        total: breakdown(23_000, 8000),
        modelContextWindow: 272_000,
      },
    },
    {
      type: 'run.completed',
      status: 'completed',
      steps: 2,
      usage: { inputTokens: 23_000, cacheReadTokens: 8000, outputTokens: 400, reasoningTokens: 100 },
      durationMs: 4000,
    },
  ];
}
