import {
  createInstructionSnapshot,
  runAgent,
  type ApprovalGate,
  type ContextUsageReconciledEvent,
  type EventEnvelope,
  type JsonValue,
  type Message,
  type ModelAdapter,
  type RunResult,
  type Tool,
} from '@forge/core';
import type { LoopbackProvider, LoopbackProviderOptions } from '../server.js';

/** Retry and timeout settings the suite gives adapters so faults resolve in milliseconds. */
export interface AdapterTuning {
  readonly retry: { readonly maxRetries: number; readonly baseDelayMs: number; readonly maxDelayMs: number };
  readonly idleTimeoutMs: number;
}

export const conformanceTuning: AdapterTuning = {
  retry: { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 2_000 },
  idleTimeoutMs: 2_000,
};

/** One row of the conformance table: an adapter under test, the same cases for every row. */
export interface ConformanceTarget {
  /** Names the row in test titles. */
  readonly name: string;
  /** Names the row's golden files: `<id>.text.json`, `<id>.continuation.json`. */
  readonly id: string;
  readonly serverOptions?: LoopbackProviderOptions;
  /** The adapter, pointed at `server.baseURL`, with `tuning` applied. */
  createModel(server: LoopbackProvider, tuning: AdapterTuning): ModelAdapter;
  /** The header that carries the key and its value for `test-key` (default `authorization: Bearer test-key`; Anthropic: `x-api-key`). */
  readonly authHeader?: { readonly name: string; readonly value: string };
  /** Whether the protocol reports reasoning tokens in usage (default true). */
  readonly reportsReasoningTokens?: boolean;
  /**
   * The absolute directory of the golden request bodies, byte for byte what the adapter sent: the
   * plain text request, and the last request of the multi-step scenario (reasoning, two tool
   * calls and their results passed back).
   */
  readonly goldenDirectory: string;
}

export const USER_REQUEST = 'Read note alpha, then answer.';
/** The session every conformance turn belongs to, so derived values (the prompt cache key) are stable. */
export const CONFORMANCE_SESSION = 'conformance-session';
export const INSTRUCTIONS = createInstructionSnapshot('You are the conformance test agent.');

/** A read-only tool that records its calls and answers with the note's text. */
export function noteTool(): Tool & { readonly calls: JsonValue[] } {
  const calls: JsonValue[] = [];
  return {
    name: 'read_note',
    description: 'Reads a note by name.',
    inputSchema: {
      type: 'object',
      properties: { name: { type: 'string' } },
      required: ['name'],
      additionalProperties: false,
    },
    risk: 'read',
    calls,
    async execute(input) {
      calls.push(input);
      const name =
        typeof input === 'object' && input !== null && !Array.isArray(input)
          ? String((input as Record<string, JsonValue>)['name'])
          : '?';
      return { output: { type: 'text', value: `note ${name}: the sky is green` } };
    },
  };
}

export const allowAll: ApprovalGate = { check: async () => ({ kind: 'allow' }) };

/** Runs one agent turn against `model` with the note tool, collecting events. */
export async function runTurn(
  model: ModelAdapter,
  options: {
    readonly signal?: AbortSignal;
    readonly tool?: Tool;
    readonly onEvent?: (envelope: EventEnvelope) => void;
  } = {},
): Promise<{ readonly result: RunResult; readonly events: EventEnvelope[] }> {
  const events: EventEnvelope[] = [];
  const result = await runAgent({
    model,
    request: USER_REQUEST,
    instructions: INSTRUCTIONS,
    tools: [options.tool ?? noteTool()],
    approvals: allowAll,
    session: { id: CONFORMANCE_SESSION },
    onEvent: (event) => {
      events.push(event);
      options.onEvent?.(event);
    },
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  return { result, events };
}

/**
 * Runs `request` (after `history`) with the note tool and returns the `context.usage.reconciled`
 * event of every step: the estimate beside what the server reported. Counting tests start the
 * loopback server with `countPromptTokens`, so a zero error means the estimate was exact.
 */
export async function reconciledRun(
  model: ModelAdapter,
  options: { readonly request: string; readonly history?: readonly Message[] },
): Promise<{ readonly result: RunResult; readonly reconciled: ContextUsageReconciledEvent[] }> {
  const reconciled: ContextUsageReconciledEvent[] = [];
  const result = await runAgent({
    model,
    request: options.request,
    ...(options.history === undefined ? {} : { session: { history: { messages: options.history } } }),
    instructions: INSTRUCTIONS,
    tools: [noteTool()],
    approvals: allowAll,
    onEvent: ({ event }) => {
      if (event.type === 'context.usage.reconciled') reconciled.push(event);
    },
  });
  return { result, reconciled };
}

/** How many times the user's request text occurs in a raw request body. */
export function occurrencesOfRequest(rawBody: string): number {
  return rawBody.split(USER_REQUEST).length - 1;
}

/** Drains a model stream, returning the parts or the error it threw. */
export async function drain(
  stream: AsyncIterable<unknown>,
): Promise<{ readonly parts: unknown[]; readonly error: unknown }> {
  const parts: unknown[] = [];
  try {
    for await (const part of stream) parts.push(part);
    return { parts, error: undefined };
  } catch (error) {
    return { parts, error };
  }
}
