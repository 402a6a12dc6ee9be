// Generates what scripts/bench-scale.ts measures: sessions and traces in Forge's own record format
// (valid CRCs, valid checkpoints), written straight to disk without a model or an fsync per record.
import { MessagesHasher, type Message } from '@forge/core';
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { encodeRecord, type SessionRecord } from '@forge/persistence';

const MODEL = { provider: 'openai', modelId: 'gpt-5.1' };
const PRICES = {
  currency: 'USD',
  inputPerMillion: 1.25,
  cachedInputPerMillion: 0.125,
  outputPerMillion: 10,
  source: 'table',
};
const START = Date.parse('2026-01-05T09:00:00.000Z');

type NewRecord = SessionRecord extends infer R ? (R extends unknown ? Omit<R, 'v' | 'seq'> : never) : never;

const EMPTY_HASH = createHash('sha256').update('[]').digest('hex');

/** Appends records to one session log through buffered writes. */
class LogWriter {
  private readonly descriptor: number;
  private seq = 0;
  private pending: string[] = [];
  private pendingBytes = 0;
  messages = 0;
  readonly prefix = new MessagesHasher();
  clock: number;

  constructor(file: string, start: number) {
    this.descriptor = openSync(file, 'w', 0o600);
    this.clock = start;
  }

  write(record: NewRecord): void {
    this.clock += 250;
    const line = encodeRecord({ v: 2, seq: this.seq, ...record } as SessionRecord);
    this.seq += 1;
    this.pending.push(line);
    this.pendingBytes += line.length;
    if (this.pendingBytes > 4 * 1024 * 1024) this.flush();
  }

  at(): string {
    return new Date(this.clock).toISOString();
  }

  message(message: Message, runId: string): void {
    this.write({ type: 'message', at: this.at(), index: this.messages, runId, message });
    this.prefix.add(message);
    this.messages += 1;
  }

  /** A Codex-import checkpoint over every message so far (a ready view of `viewBytes`), valid for compact mode. */
  checkpoint(viewBytes: number): void {
    const view = `Checkpoint of the work so far.\n${'- a fact the agent established about the code\n'.repeat(Math.ceil(viewBytes / 47))}`;
    this.write({
      type: 'checkpoint',
      at: this.at(),
      source: {
        summarizedThrough: this.messages,
        sourceHash: this.prefix.digestSoFar(),
        tailStart: this.messages,
        tailHash: EMPTY_HASH,
        messageCount: this.messages,
      },
      checkpoint: { strategy: 'codex-import', view },
    });
  }

  flush(): void {
    if (this.pending.length > 0) writeSync(this.descriptor, this.pending.join(''));
    this.pending = [];
    this.pendingBytes = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.descriptor);
  }
}

function hex(value: number, length: number): string {
  return value.toString(16).padStart(length, '0').slice(-length);
}

export function sessionId(index: number, time: number): string {
  return `session_${time.toString(36)}_${hex(index, 12)}`;
}

/** One ordinary turn: a request, a read, its result and an answer; the result carries `outputBytes` of text. */
function writeTurn(log: LogWriter, runId: string, turn: number, outputBytes: number): void {
  const callId = `call_${hex(turn, 12)}`;
  log.write({ type: 'run.started', at: log.at(), runId, instructionsHash: 'a'.repeat(64), model: MODEL });
  log.message({ role: 'user', content: `Turn ${turn}: look at src/module-${turn % 50}.ts and fix what fails.` }, runId);
  log.message(
    {
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: callId, toolName: 'read_file', input: { path: `src/m${turn % 50}.ts` } },
      ],
    },
    runId,
  );
  const line = `export function value${turn}(input: number): number { return input * ${turn}; }\n`;
  log.message(
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: callId,
          toolName: 'read_file',
          output: { type: 'text', value: line.repeat(Math.max(1, Math.ceil(outputBytes / line.length))) },
        },
      ],
    },
    runId,
  );
  log.message(
    { role: 'assistant', content: [{ type: 'text', text: `Turn ${turn} is done: the function is fixed.` }] },
    runId,
  );
  log.write({
    type: 'run.ended',
    at: log.at(),
    runId,
    status: 'completed',
    steps: 2,
    usage: { inputTokens: 12_000, cacheReadTokens: 9_000, outputTokens: 400 },
    instructionsHash: 'a'.repeat(64),
    // The run's cost as this Forge records it (an older Forge reads the record and ignores it).
    priced: true,
    cost: RUN_COST,
  });
}

/** What a budget event of `step` looks like in a compact-mode run. */
export function budgetEvent(step: number): Record<string, unknown> {
  const categories = {
    instructions: 2400,
    checkpoint: 1800,
    history: 1200,
    request: 300,
    toolSchemas: 1145,
    overhead: 180,
  };
  return {
    type: 'context.budgeted',
    step,
    model: MODEL,
    retainedMessages: 12,
    instructionsHash: 'a'.repeat(64),
    toolCount: 5,
    toolSchemaTokens: 1145,
    mode: 'compact',
    decision: 'ok',
    contextWindowTokens: 400_000,
    windowSource: 'table',
    estimate: { tokens: 7025, method: 'provider-tokenizer', confidence: 'exact', categories },
    requestedOutputTokens: 32_000,
    bufferTokens: 8192,
    reservedTokens: 32_000,
    availableInputTokens: 368_000,
    mandatoryTokens: 4000,
    remainingHistoryTokens: 364_000,
    freeTokens: 360_975,
    warnAtTokens: 294_400,
    overBudget: false,
    note: 'x'.repeat(1400),
  };
}

const STEP_USAGE = {
  inputTokens: 6_000,
  cacheReadTokens: 4_500,
  cacheWriteTokens: 0,
  outputTokens: 200,
  reasoningTokens: 0,
};
const STEP_COST = {
  currency: 'USD',
  freshInput: 0.001875,
  cachedInput: 0.0005625,
  cacheWrite: 0,
  output: 0.002,
  total: 0.0044375,
};
const RUN_COST = {
  currency: 'USD' as const,
  freshInput: 0.00375,
  cachedInput: 0.001125,
  cacheWrite: 0,
  output: 0.004,
  total: 0.008875,
};

/** A trace of one two-step run with prices, shaped like what runAgent writes (about 8 KB). */
export function writeTrace(directory: string, runId: string, session: string, time: number): void {
  const lines: string[] = [];
  let sequence = 0;
  const emit = (event: Record<string, unknown>) => {
    lines.push(
      JSON.stringify({
        schemaVersion: 1,
        runId,
        sessionId: session,
        sequence,
        timestamp: new Date(time + sequence * 30).toISOString(),
        event,
      }),
    );
    sequence += 1;
  };
  emit({
    type: 'run.started',
    model: MODEL,
    instructions: { hash: 'a'.repeat(64), sources: [{ origin: 'AGENTS.md', sha256: 'b'.repeat(64) }] },
    tools: ['list_files', 'read_file', 'search', 'edit_file', 'run_command'],
    maxSteps: 50,
    historyMessages: 40,
    prices: PRICES,
  });
  for (const step of [1, 2]) {
    emit(budgetEvent(step));
    emit({ type: 'model.step.started', step });
    emit({
      type: 'model.step.completed',
      step,
      finishReason: step === 1 ? 'tool-calls' : 'stop',
      usage: STEP_USAGE,
      toolCalls: step === 1 ? 1 : 0,
      cost: STEP_COST,
    });
    emit({
      type: 'context.usage.reconciled',
      step,
      model: MODEL,
      estimatedTokens: 7025,
      undercountBeyondBuffer: false,
      accuracy: {
        provider: 'openai',
        modelId: 'gpt-5.1',
        samples: 12,
        meanErrorPercent: 1.2,
        meanAbsoluteErrorPercent: 2.1,
      },
    });
    if (step === 1) {
      emit({
        type: 'tool.call.started',
        step,
        toolCallId: `call_${runId}`,
        toolName: 'read_file',
        summary: 'read_file src/a.ts',
      });
      emit({
        type: 'tool.call.completed',
        step,
        toolCallId: `call_${runId}`,
        toolName: 'read_file',
        outcome: 'ok',
        durationMs: 3,
        resultSummary: 'read src/a.ts (40 lines)',
      });
    }
  }
  emit({
    type: 'run.completed',
    status: 'completed',
    steps: 2,
    usage: { ...STEP_USAGE, inputTokens: 12_000, cacheReadTokens: 9_000, outputTokens: 400 },
    durationMs: 900,
    cost: RUN_COST,
    cacheHitRatio: 0.75,
  });
  const descriptor = openSync(join(directory, `${runId}.jsonl`), 'w', 0o600);
  writeSync(descriptor, `${lines.join('\n')}\n`);
  closeSync(descriptor);
}

export interface GeneratedSession {
  readonly id: string;
  readonly runIds: readonly string[];
}

/**
 * A session of `turns` turns in `home` for `workspace`, each tool result `outputBytes` long, with
 * a checkpoint every `checkpointEvery` turns (and after the last but `tailTurns` ones), and a trace
 * per run when `traces`.
 */
export function generateSession(options: {
  readonly home: string;
  readonly workspace: string;
  readonly index: number;
  readonly turns: number;
  readonly outputBytes: number;
  readonly checkpointEvery?: number;
  readonly checkpointBytes?: number;
  readonly tailTurns?: number;
  readonly traces: boolean;
  readonly start?: number;
}): GeneratedSession {
  const start = options.start ?? START + options.index * 60_000;
  const id = sessionId(options.index, start);
  const directory = join(options.home, 'sessions', id);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  mkdirSync(join(options.home, 'runs'), { recursive: true, mode: 0o700 });
  const log = new LogWriter(join(directory, 'session.jsonl'), start);
  log.write({ type: 'session', at: log.at(), id, createdAt: log.at(), workspaceRoot: options.workspace });
  const runIds: string[] = [];
  const tail = options.tailTurns ?? 2;
  for (let turn = 0; turn < options.turns; turn += 1) {
    const runId = `run_${(start + turn).toString(36)}_${hex(options.index * 1_000_000 + turn, 12)}`;
    runIds.push(runId);
    writeTurn(log, runId, turn, options.outputBytes);
    if (options.traces) writeTrace(join(options.home, 'runs'), runId, id, log.clock);
    const every = options.checkpointEvery;
    if ((every !== undefined && (turn + 1) % every === 0) || turn === options.turns - 1 - tail)
      log.checkpoint(options.checkpointBytes ?? 13_000);
  }
  log.close();
  return { id, runIds };
}
