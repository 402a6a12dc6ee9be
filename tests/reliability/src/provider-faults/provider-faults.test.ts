import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createInstructionSnapshot,
  findUnpairedToolCalls,
  runAgent,
  type ApprovalGate,
  type EventEnvelope,
  type JsonValue,
  type RunResult,
  type Tool,
} from '@forge/core';
import { startLoopbackProvider, turn, type LoopbackProvider, type LoopbackReply } from '@forge/loopback-provider';
import { loadTranscript } from '@forge/persistence';
import { runSessionTurn } from '@forge/sessions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTER_NAMES, adapterFor, type AdapterName } from '../support/adapters.js';
import { reportCounts } from '../support/run-size.js';
import { occurrences, unpairedOnTheWire } from './wire-pairing.js';

/*
 * Issue 10, point 5 (invariants 4, 7, 8): provider faults through the loopback server with each
 * real adapter, driven by core's runAgent (and a session turn for overflow recovery). For every
 * fault: the user's request is in every request body exactly once, a tool with a side effect runs
 * once per call whatever is retried, no request pairs a tool call without its result (or the
 * reverse), and the run ends with an honest status — completed only when the model answered.
 */

const MAX_RETRIES = 2;
const IDLE_TIMEOUT_MS = 300;
const allowAll: ApprovalGate = { check: async () => ({ kind: 'allow' }) };
let workspace = '';
const totals = { scenarios: 0, requests: 0, sideEffects: 0 };

beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'forge-reliability-faults-'));
  // The first request of an adapter loads the AI SDK; warm each one so the idle timeout measures the provider only.
  const server = await startLoopbackProvider();
  try {
    for (const adapter of ADAPTER_NAMES) {
      server.enqueue(turn({ text: 'warm' }));
      await runAgent({
        model: adapterFor(adapter, server.baseURL, { maxRetries: 0, idleTimeoutMs: 10_000 }),
        request: 'warm up',
        instructions: createInstructionSnapshot('Warm up.'),
      });
    }
  } finally {
    await server.close();
  }
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
  reportCounts('provider-faults', totals);
});

/** A tool with a side effect: each call appends its call id to a log file. */
function appendTool(file: string): Tool & { readonly executed: string[] } {
  const executed: string[] = [];
  return {
    name: 'append_line',
    description: 'Appends a line to the log.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    risk: 'write',
    executed,
    async execute(input: JsonValue, context) {
      executed.push(context.toolCallId);
      await appendFile(file, `${context.toolCallId} ${String((input as { text?: JsonValue }).text ?? '')}\n`);
      return { output: { type: 'text', value: 'appended' } };
    },
  };
}

const overflow: LoopbackReply = {
  type: 'http-error',
  status: 400,
  code: 'context_length_exceeded',
  errorType: 'invalid_request_error',
  message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9100 tokens.",
};
const serverError: LoopbackReply = { type: 'http-error', status: 500, message: 'Internal error.' };
const rateLimited: LoopbackReply = {
  type: 'http-error',
  status: 429,
  code: 'rate_limit_exceeded',
  message: 'Slow down.',
  headers: { 'retry-after-ms': '5' },
};
const callAppend = (callId: string) =>
  turn({ toolCalls: [{ name: 'append_line', arguments: { text: 'once' }, callId }] });

interface Scenario {
  readonly name: string;
  readonly replies: (adapter: AdapterName) => LoopbackReply[];
  readonly status: RunResult['status'];
  readonly errorCode?: string;
  readonly requests: number;
  readonly sideEffects: number;
  /** Text the run must report (what was streamed before a failure, or the answer). */
  readonly text?: string;
  /** Indexes of requests that must be byte-identical retries of the one before. */
  readonly retries?: readonly number[];
}

const SCENARIOS: readonly Scenario[] = [
  {
    name: 'overflow on the first step',
    replies: () => [overflow],
    status: 'failed',
    errorCode: 'context_overflow',
    requests: 1,
    sideEffects: 0,
  },
  {
    name: 'overflow after partial output',
    replies: () => [
      {
        type: 'stream-failed',
        code: 'context_length_exceeded',
        message: 'maximum context length is 8192 tokens',
        turn: turn({ text: ['Partial ', 'answer'] }),
        afterEvents: 4,
      },
    ],
    status: 'failed',
    requests: 1,
    sideEffects: 0,
  },
  {
    name: 'a storm of 429s after a tool call',
    replies: () => [callAppend('call_a1'), rateLimited, rateLimited, rateLimited],
    status: 'failed',
    errorCode: 'rate_limited',
    requests: 4,
    sideEffects: 1,
    retries: [2, 3],
  },
  {
    name: '500s that clear after a tool call',
    replies: () => [callAppend('call_b1'), serverError, serverError, turn({ text: 'Recovered.' })],
    status: 'completed',
    requests: 4,
    sideEffects: 1,
    text: 'Recovered.',
    retries: [2, 3],
  },
  {
    name: '500s on every attempt',
    replies: () => [serverError, serverError, serverError],
    status: 'failed',
    errorCode: 'transport',
    requests: 3,
    sideEffects: 0,
    retries: [1, 2],
  },
  {
    name: 'a stream cut before any output is retried',
    replies: () => [
      callAppend('call_c1'),
      { type: 'cut', turn: turn({ text: 'lost' }), afterEvents: 1 },
      turn({ text: 'Second try.' }),
    ],
    status: 'completed',
    requests: 3,
    sideEffects: 1,
    text: 'Second try.',
    retries: [2],
  },
  {
    name: 'a stream cut after output, with a second tool call in it',
    replies: () => [
      callAppend('call_d1'),
      {
        type: 'cut',
        turn: turn({
          text: ['Now ', 'again'],
          toolCalls: [{ name: 'append_line', arguments: { text: 'twice' }, callId: 'call_d2' }],
        }),
        afterEvents: 'before-completion',
      },
    ],
    status: 'failed',
    errorCode: 'transport',
    requests: 2,
    sideEffects: 1,
    text: 'Now again',
  },
  {
    name: 'malformed SSE after output',
    replies: () => [
      {
        type: 'malformed',
        turn: turn({
          text: ['Half ', 'way'],
          toolCalls: [{ name: 'append_line', arguments: { text: 'x' }, callId: 'call_e1' }],
        }),
        afterEvents: 'before-completion',
      },
    ],
    status: 'failed',
    errorCode: 'transport',
    requests: 1,
    sideEffects: 0,
    text: 'Half way',
  },
  {
    name: 'a response slower than the idle timeout',
    replies: () => [callAppend('call_f1'), { type: 'hang' }],
    status: 'failed',
    errorCode: 'transport',
    requests: 2,
    sideEffects: 1,
  },
  {
    name: 'a long run through every recoverable fault',
    replies: () => [
      callAppend('call_g1'),
      serverError,
      callAppend('call_g2'),
      { type: 'cut', turn: turn({ text: 'x' }), afterEvents: 1 },
      rateLimited,
      callAppend('call_g3'),
      turn({ text: 'All three appended.' }),
    ],
    status: 'completed',
    requests: 7,
    sideEffects: 3,
    text: 'All three appended.',
  },
];

/** A session with six long turns, then a turn that calls a tool and meets one overflow: the requests it sent. */
async function overflowInSession(adapter: AdapterName): Promise<{
  readonly request: string;
  readonly sent: readonly LoopbackProvider['requests'][number][];
  readonly result: RunResult;
  readonly sideEffects: number;
  readonly home: string;
  readonly sessionId: string;
}> {
  const server = await startLoopbackProvider();
  const home = await mkdtemp(join(workspace, `home-${adapter}-`));
  try {
    const file = join(home, 'side-effects.log');
    const tool = appendTool(file);
    const instructions = createInstructionSnapshot('You are the provider fault test agent.');
    const model = adapterFor(adapter, server.baseURL, { maxRetries: MAX_RETRIES, idleTimeoutMs: IDLE_TIMEOUT_MS });
    let sessionId: string | undefined;
    for (let index = 0; index < 6; index += 1) {
      server.enqueue(turn({ text: `Earlier answer ${index}: ${'detail '.repeat(1500)}` }));
      const earlier = await runSessionTurn({
        home,
        ...(sessionId === undefined ? { workspaceRoot: workspace } : { sessionId }),
        model,
        instructions,
        request: `Earlier question ${index}.`,
      });
      sessionId = earlier.sessionId;
    }
    const before = server.requests.length;
    const request = `REQUEST<${adapter}|overflow recovery>: append once, then answer.`;
    server.enqueue(callAppend(`call_${adapter}_h1`), overflow, turn({ text: 'Fits now.' }));
    const recovered = await runSessionTurn({
      home,
      sessionId: sessionId as string,
      model,
      instructions,
      request,
      tools: [tool],
      approvals: allowAll,
      context: { mode: 'compact' },
    });
    const sideEffects = (await readFile(file, 'utf8')).split('\n').filter((line) => line.length > 0).length;
    totals.scenarios += 1;
    totals.requests += server.requests.length - before;
    totals.sideEffects += sideEffects;
    return {
      request,
      sent: server.requests.slice(before),
      result: recovered.result,
      sideEffects,
      home,
      sessionId: sessionId as string,
    };
  } finally {
    await server.close();
  }
}

function checkWire(server: LoopbackProvider, request: string): void {
  for (const [index, recorded] of server.requests.entries()) {
    expect(occurrences(recorded.rawBody, request), `request ${index + 1} repeats or drops the user's input`).toBe(1);
    expect(unpairedOnTheWire(recorded.body), `request ${index + 1} sends an unpaired tool call or result`).toEqual({
      calls: [],
      results: [],
    });
  }
}

describe.each(ADAPTER_NAMES)('provider faults through the %s adapter', (adapter) => {
  it.each(SCENARIOS)('$name', async (scenario) => {
    const server = await startLoopbackProvider();
    try {
      server.enqueue(...scenario.replies(adapter));
      const file = join(workspace, `${adapter}-${scenario.name.replace(/\W+/g, '-')}.log`);
      const tool = appendTool(file);
      const request = `REQUEST<${adapter}|${scenario.name}>: append once, then answer.`;
      const events: EventEnvelope[] = [];
      const result = await runAgent({
        model: adapterFor(adapter, server.baseURL, { maxRetries: MAX_RETRIES, idleTimeoutMs: IDLE_TIMEOUT_MS }),
        request,
        instructions: createInstructionSnapshot('You are the provider fault test agent.'),
        tools: [tool],
        approvals: allowAll,
        onEvent: (event) => events.push(event),
      });

      expect(result.status).toBe(scenario.status);
      if (scenario.errorCode !== undefined) expect(result.error?.code).toBe(scenario.errorCode);
      if (scenario.status !== 'completed') {
        expect(result.error).toBeDefined();
        expect(events.at(-1)?.event.type).toBe('run.failed');
      }
      // What streamed before a failure is kept, marked as cut (issue 30), so a resume does not replay it as a whole answer.
      if (scenario.text !== undefined)
        expect(result.text).toBe(
          scenario.status === 'completed'
            ? scenario.text
            : `${scenario.text}\n\n[Forge: this answer was cut off here: the stream ended before the model finished it]`,
        );
      expect(server.requests).toHaveLength(scenario.requests);
      for (const index of scenario.retries ?? [])
        expect(server.requests[index]?.rawBody).toBe(server.requests[index - 1]?.rawBody);
      checkWire(server, request);
      expect(findUnpairedToolCalls(result.messages)).toEqual([]);
      expect(result.messages.filter((message) => message.role === 'user')).toEqual([
        { role: 'user', content: request },
      ]);

      const lines = (await readFile(file, 'utf8').catch(() => '')).split('\n').filter((line) => line.length > 0);
      expect(lines).toHaveLength(scenario.sideEffects);
      expect(new Set(tool.executed).size).toBe(tool.executed.length);
      totals.scenarios += 1;
      totals.requests += server.requests.length;
      totals.sideEffects += lines.length;
    } finally {
      await server.close();
    }
  });

  it('recovers a session from one overflow by compacting once, pairing every call and never re-running a tool', async () => {
    const { request, sent, result, sideEffects, home, sessionId } = await overflowInSession(adapter);
    expect(result.status, JSON.stringify(result.error)).toBe('completed');
    expect(result.text).toBe('Fits now.');
    expect(sent).toHaveLength(3);
    expect(sent[2]?.rawBody.length).toBeLessThan(sent[1]?.rawBody.length ?? 0);
    expect(sent[2]?.rawBody).toContain('SESSION_CHECKPOINT');
    for (const recorded of sent) expect(unpairedOnTheWire(recorded.body)).toEqual({ calls: [], results: [] });
    expect(sideEffects).toBe(1);
    const stored = await loadTranscript(home, sessionId);
    expect(stored.messages.filter((message) => message.role === 'user' && message.content === request)).toHaveLength(1);
    expect(findUnpairedToolCalls(stored.messages)).toEqual([]);
    expect(stored.checkpoint).toBeDefined();
  });
});

/*
 * Regression (invariant 8): a checkpoint built during a run quoted the running request as its
 * [TASK], so the request retried after an overflow carried the user's input twice. Found by this
 * suite; fixed in core's checkpoint view (30e218e).
 */
describe('overflow recovery inside a session turn', () => {
  it('sends the running request once, not again as the checkpoint task', async () => {
    const { request, sent } = await overflowInSession('openai');
    for (const [index, recorded] of sent.entries())
      expect(occurrences(recorded.rawBody, request), `request ${index + 1} of the turn`).toBe(1);
  });
});
