import { ContextOverflowError, InvalidInputError } from '../errors.js';
import type { JsonValue } from '../json.js';
import {
  emptyUsage,
  type FinishReason,
  type ModelAdapter,
  type ModelCallOptions,
  type ModelCapabilities,
  type ModelRequest,
  type ModelStreamPart,
  type TokenEstimate,
  type Usage,
} from '../model/adapter.js';
import { countMessagesWithEstimate } from '../budget/message-counts.js';
import type { Message } from '../messages.js';
import { estimateWithFakeTokenizer } from './fake-estimator.js';

export interface ScriptedToolCall {
  readonly toolName: string;
  readonly input: JsonValue;
  readonly toolCallId?: string;
}

/** One scripted model step. Fields combine: reasoning, then text, then tool calls, then the failure if any. */
export interface ScriptedReply {
  readonly reasoning?: string;
  readonly text?: string;
  /** Split `text` into this many deltas (default 1) to exercise streaming. */
  readonly textChunks?: number;
  readonly toolCalls?: readonly ScriptedToolCall[];
  readonly usage?: Partial<Usage>;
  readonly finishReason?: FinishReason;
  /** Thrown after the parts above were streamed (a cut stream, a provider error). */
  readonly error?: Error;
  /** Throw a provider context overflow before streaming anything. */
  readonly overflow?: boolean;
  /** Stream nothing and wait until the call is aborted. */
  readonly hang?: boolean;
}

export type ScriptedStep = ScriptedReply | ((request: ModelRequest, callIndex: number) => ScriptedReply);

export interface ScriptedModelOptions {
  readonly provider?: string;
  readonly modelId?: string;
  readonly capabilities?: Partial<ModelCapabilities>;
  readonly estimate?: (request: ModelRequest) => TokenEstimate;
  /** Per-message counts by the same counter as `estimate`; by default measured through `estimate`. */
  readonly countMessages?: (messages: readonly Message[]) => readonly number[];
}

/**
 * A model adapter that plays back scripted steps and records every request it receives. Use it
 * in every test that needs a model instead of writing a new mock.
 */
export class ScriptedModel implements ModelAdapter {
  readonly specificationVersion = 'forge-model-v1' as const;
  readonly provider: string;
  readonly modelId: string;
  readonly capabilities: ModelCapabilities;
  /** Every request passed to `doStream`, in order. */
  readonly requests: ModelRequest[] = [];
  /** The call options of each `doStream` call (signal aside), in order. */
  readonly callOptions: Omit<ModelCallOptions, 'signal'>[] = [];
  /** Every request passed to `estimateRequestTokens`, in order. */
  readonly estimateRequests: ModelRequest[] = [];
  private readonly steps: ScriptedStep[];
  private readonly estimator: (request: ModelRequest) => TokenEstimate;
  private readonly countMessages: ((messages: readonly Message[]) => readonly number[]) | undefined;

  constructor(steps: readonly ScriptedStep[], options: ScriptedModelOptions = {}) {
    this.steps = [...steps];
    this.provider = options.provider ?? 'scripted';
    this.modelId = options.modelId ?? 'scripted-model';
    this.capabilities = {
      contextWindowTokens: 128_000,
      maxOutputTokens: 16_000,
      nativeCompaction: 'unsupported',
      continuationProjection: 'adapter-owned',
      estimation: 'conservative-fallback',
      source: 'table',
      ...options.capabilities,
    };
    this.estimator = options.estimate ?? estimateWithFakeTokenizer;
    this.countMessages = options.countMessages;
  }

  /** Steps not yet played. */
  get remainingSteps(): number {
    return this.steps.length - this.requests.length;
  }

  async estimateRequestTokens(request: ModelRequest): Promise<TokenEstimate> {
    this.estimateRequests.push(request);
    return this.estimator(request);
  }

  /** What each message adds to an otherwise empty request, by the same estimator. */
  async countMessageTokens(messages: readonly Message[]): Promise<readonly number[]> {
    return this.countMessages === undefined
      ? countMessagesWithEstimate(this.estimator, messages)
      : this.countMessages(messages);
  }

  async *doStream(request: ModelRequest, options: ModelCallOptions): AsyncIterable<ModelStreamPart> {
    const callIndex = this.requests.length;
    this.requests.push(request);
    const { signal: _signal, ...recorded } = options;
    this.callOptions.push(recorded);
    const step = this.steps[callIndex];
    if (step === undefined) {
      throw new InvalidInputError({
        message: `ScriptedModel has no step ${callIndex + 1}; the script has ${this.steps.length}.`,
      });
    }
    const reply = typeof step === 'function' ? step(request, callIndex) : step;
    if (reply.overflow)
      throw new ContextOverflowError({
        message: 'Scripted context overflow.',
        limitTokens: this.capabilities.contextWindowTokens,
      });
    if (reply.hang) {
      await waitForAbort(options.signal);
      options.signal?.throwIfAborted();
    }
    if (reply.reasoning !== undefined) yield { type: 'reasoning', part: { type: 'reasoning', text: reply.reasoning } };
    if (reply.text !== undefined) {
      for (const delta of splitText(reply.text, reply.textChunks ?? 1)) {
        await Promise.resolve();
        options.signal?.throwIfAborted();
        yield { type: 'text-delta', delta };
      }
    }
    const calls = reply.toolCalls ?? [];
    for (const [index, call] of calls.entries()) {
      yield {
        type: 'tool-call',
        part: {
          type: 'tool-call',
          toolCallId: call.toolCallId ?? `call_${callIndex + 1}_${index + 1}`,
          toolName: call.toolName,
          input: call.input,
        },
      };
    }
    if (reply.error) throw reply.error;
    yield {
      type: 'finish',
      finishReason: reply.finishReason ?? (calls.length > 0 ? 'tool-calls' : 'stop'),
      usage: { ...emptyUsage, ...reply.usage },
    };
  }
}

function splitText(text: string, chunks: number): string[] {
  if (chunks <= 1 || text.length <= 1) return [text];
  const size = Math.ceil(text.length / chunks);
  const parts: string[] = [];
  for (let start = 0; start < text.length; start += size) parts.push(text.slice(start, start + size));
  return parts;
}

function waitForAbort(signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return new Promise(() => {});
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
