import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jsonValueSchema, type ModelAdapter, type ModelRequest, type ModelStreamPart } from '@forge/core';
import { startLoopbackProvider, turn, type TurnReply } from '@forge/loopback-provider';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADAPTER_NAMES, adapterFor, endpointOf, type AdapterName } from '../support/adapters.js';
import { byteMutations, fuzz, MAX_RSS_GROWTH_MB, onlyTypedErrors } from '../support/fuzz-harness.js';
import { reportCounts, runSize, suiteTimeoutMs } from '../support/run-size.js';

/*
 * Issue 10, point 2: the stream parsing of the provider path. Real response streams are recorded
 * from the loopback provider, then a raw loopback server plays them back damaged — edited bytes,
 * dropped or repeated events, random event data, cut connections, odd status codes, silence —
 * to each real adapter. Only ForgeErrors may escape `doStream`, nothing may hang past the idle
 * timeout, and every part that does come out is well formed.
 */

const RUNS = runSize(240, 100_000);
/** Short, so that silent servers cost little; a slow cold start only turns into one more typed error. */
const IDLE_TIMEOUT_MS = runSize(250, 100);

interface RawReply {
  readonly status: number;
  readonly contentType: string;
  readonly chunks: readonly Uint8Array[];
  readonly ending: 'end' | 'destroy' | 'silence';
}

let server: Server;
let baseURL = '';
let next: RawReply | undefined;
type Endpoint = 'responses' | 'chat' | 'messages';
const recorded: Record<Endpoint, Buffer[]> = { responses: [], chat: [], messages: [] };
const PATHS: Record<Endpoint, string> = { responses: 'responses', chat: 'chat/completions', messages: 'messages' };

const TURNS: TurnReply[] = [
  turn({ text: ['Hello ', 'there.'], usage: { inputTokens: 12, outputTokens: 3 } }),
  turn({
    reasoning: ['Think ', 'first.'],
    text: 'Reading.',
    toolCalls: [{ name: 'read_file', arguments: { path: 'src/a.ts' }, callId: 'call_a' }],
  }),
  turn({
    toolCalls: [
      { name: 'run_command', arguments: { argv: ['pnpm', 'test'] }, callId: 'call_b' },
      { name: 'read_file', arguments: '{"path":"b.ts"}', callId: 'call_c' },
    ],
  }),
  turn({ text: 'Done.', incompleteReason: 'max_output_tokens' }),
];

/** Records the exact bytes the loopback provider streams for each turn on both endpoints. */
async function recordStreams(): Promise<void> {
  const loopback = await startLoopbackProvider({ checkInput: false });
  try {
    for (const endpoint of ['responses', 'chat', 'messages'] as const) {
      for (const reply of TURNS) {
        loopback.enqueue(reply);
        const response = await fetch(`${loopback.baseURL}/${PATHS[endpoint]}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'm', input: [], messages: [], stream: true }),
        });
        recorded[endpoint].push(Buffer.from(await response.arrayBuffer()));
      }
    }
  } finally {
    await loopback.close();
  }
}

beforeAll(async () => {
  await recordStreams();
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const reply = next;
      next = undefined;
      if (reply === undefined) {
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end('{"error":{"message":"no reply queued"}}');
        return;
      }
      response.writeHead(reply.status, { 'content-type': reply.contentType });
      for (const chunk of reply.chunks) response.write(chunk);
      if (reply.ending === 'end') response.end();
      else if (reply.ending === 'destroy') response.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Splits a stream into its SSE events (separated by a blank line). */
function events(stream: Buffer): string[] {
  return stream
    .toString('utf8')
    .split('\n\n')
    .filter((event) => event.length > 0)
    .map((event) => `${event}\n\n`);
}

function streamBodies(endpoint: Endpoint): fc.Arbitrary<Uint8Array> {
  const streams = recorded[endpoint];
  const one = fc.constantFrom(...streams);
  return fc.oneof(
    { weight: 3, arbitrary: one.chain((stream) => byteMutations(stream)) },
    {
      weight: 3,
      arbitrary: one.chain((stream) => fc.shuffledSubarray(events(stream))).map((list) => Buffer.from(list.join(''))),
    },
    {
      weight: 2,
      arbitrary: one
        .chain((stream) => fc.array(fc.constantFrom(...events(stream)), { maxLength: 20 }))
        .map((list) => Buffer.from(list.join(''))),
    },
    {
      weight: 2,
      arbitrary: one.chain((stream) =>
        fc.tuple(fc.constant(events(stream)), fc.nat(), fc.jsonValue({ maxDepth: 3 })).map(([list, at, data]) => {
          const copy = [...list];
          copy.splice(at % (copy.length + 1), 0, `data: ${JSON.stringify(data)}\n\n`);
          return Buffer.from(copy.join(''));
        }),
      ),
    },
    { weight: 1, arbitrary: one.map((stream) => stream) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 2048 }) },
    { weight: 1, arbitrary: fc.string({ maxLength: 400 }).map((text) => Buffer.from(`data: ${text}\n\n`)) },
  );
}

const caseArbitrary = fc.constantFrom(...ADAPTER_NAMES).chain((adapter) =>
  fc.record({
    adapter: fc.constant(adapter),
    body: streamBodies(endpointOf(adapter)),
    status: fc.oneof(
      { weight: 12, arbitrary: fc.constant(200) },
      { weight: 1, arbitrary: fc.constantFrom(400, 401, 404, 413, 429, 500, 503, 302, 204) },
    ),
    contentType: fc.oneof(
      { weight: 8, arbitrary: fc.constant('text/event-stream') },
      { weight: 1, arbitrary: fc.constantFrom('application/json', 'text/plain', '') },
    ),
    pieces: fc.integer({ min: 1, max: 6 }),
    ending: fc.oneof(
      { weight: 12, arbitrary: fc.constant('end' as const) },
      { weight: 2, arbitrary: fc.constant('destroy' as const) },
      { weight: 1, arbitrary: fc.constant('silence' as const) },
    ),
  }),
);

function split(bytes: Uint8Array, pieces: number): Uint8Array[] {
  const size = Math.max(1, Math.ceil(bytes.length / pieces));
  const chunks: Uint8Array[] = [];
  for (let start = 0; start < bytes.length; start += size) chunks.push(bytes.subarray(start, start + size));
  return chunks;
}

const REQUEST: ModelRequest = {
  instructions: 'You are the stream fuzz agent.',
  history: [],
  currentRequest: { role: 'user', content: 'Answer.' },
  continuation: [],
  tools: [
    {
      name: 'read_file',
      description: 'Reads a file.',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
    },
    {
      name: 'run_command',
      description: 'Runs a command.',
      inputSchema: { type: 'object', properties: { argv: { type: 'array' } } },
    },
  ],
};

function checkPart(part: ModelStreamPart): void {
  switch (part.type) {
    case 'text-delta':
      expect(typeof part.delta).toBe('string');
      return;
    case 'reasoning':
      expect(typeof part.part.text).toBe('string');
      return;
    case 'tool-call':
      expect(part.part.toolCallId.length).toBeGreaterThan(0);
      expect(part.part.toolName.length).toBeGreaterThan(0);
      expect(jsonValueSchema.safeParse(part.part.input).success).toBe(true);
      return;
    case 'finish':
      for (const value of Object.values(part.usage))
        expect(value === undefined || (typeof value === 'number' && Number.isFinite(value))).toBe(true);
      return;
  }
}

describe('fuzzing the provider stream path', () => {
  it(
    'every adapter turns any damaged stream into well-formed parts or a typed error, within the idle timeout',
    async () => {
      const models = new Map<AdapterName, ModelAdapter>(
        ADAPTER_NAMES.map((name) => [
          name,
          adapterFor(name, baseURL, { maxRetries: 0, idleTimeoutMs: IDLE_TIMEOUT_MS }),
        ]),
      );
      const outcomes = { finished: 0, typedErrors: 0, parts: 0 };
      const stats = await fuzz(
        caseArbitrary,
        async (input) => {
          next = {
            status: input.status,
            contentType: input.contentType,
            chunks: split(input.body, input.pieces),
            ending: input.ending,
          };
          const model = models.get(input.adapter) as ModelAdapter;
          try {
            for await (const part of model.doStream(REQUEST, {})) {
              checkPart(part);
              outcomes.parts += 1;
              if (part.type === 'finish') outcomes.finished += 1;
            }
          } catch (error) {
            onlyTypedErrors(error);
            outcomes.typedErrors += 1;
          }
        },
        { target: 'provider-stream', numRuns: RUNS, caseTimeoutMs: 3_000 },
      );
      reportCounts('fuzz provider-stream', {
        cases: stats.cases,
        ...outcomes,
        slowestCaseMs: stats.slowestCaseMs,
        rssGrowthMb: stats.rssGrowthMb,
      });
      expect(outcomes.finished).toBeGreaterThan(0);
      expect(outcomes.typedErrors).toBeGreaterThan(0);
      expect(stats.rssGrowthMb).toBeLessThan(MAX_RSS_GROWTH_MB);
    },
    suiteTimeoutMs(60_000),
  );
});
