import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import {
  CancelledError,
  TransportError,
  type ForgeError,
  type JsonObject,
  type JsonValue,
  type ModelStreamPart,
  type ReasoningPart,
} from '@forge/core';
import { classifyProviderError, type ProviderErrorContext } from './classify-error.js';
import { retryDelayMs, sleep, type RetryPolicy } from './retry.js';
import { toCoreFinishReason, toCoreUsage } from './usage.js';

export interface StreamModelOptions {
  readonly model: LanguageModelV4;
  readonly callOptions: Omit<LanguageModelV4CallOptions, 'abortSignal'>;
  readonly signal?: AbortSignal;
  readonly errors: ProviderErrorContext;
  readonly retry: RetryPolicy;
  /** The stream fails with a retryable `TransportError` after this long without any data. */
  readonly idleTimeoutMs: number;
  /** Adds what the adapter needs later to a finished reasoning part's provider metadata (e.g. its origin). */
  readonly decorateReasoning?: (metadata: JsonObject | undefined) => JsonObject | undefined;
}

type AttemptEnd =
  | { readonly kind: 'done' }
  | { readonly kind: 'failed'; readonly error: ForgeError; readonly streamedOutput: boolean };

/**
 * Streams one model step through an AI SDK language model and converts it to core stream parts.
 *
 * - Text deltas stream as they arrive. Reasoning is yielded once complete, with its provider
 *   metadata (encrypted content, item id) untouched.
 * - From the first tool call on, parts are held back until the provider confirms completion, so a
 *   tool call from an incomplete response is never emitted; held text is still released if the
 *   stream then fails, so partial output is kept.
 * - A failure before anything was yielded is retried per `retry` (rate limits honour retry-after);
 *   after any output, never: the error is thrown as a typed `ForgeError`.
 */
export async function* streamModel(options: StreamModelOptions): AsyncGenerator<ModelStreamPart, void, undefined> {
  for (let retry = 0; ; retry += 1) {
    const end = yield* attempt(options);
    if (end.kind === 'done') return;
    const delay = end.streamedOutput ? undefined : retryDelayMs(end.error, retry, options.retry);
    if (delay === undefined) throw end.error;
    await sleep(delay, options.signal);
  }
}

async function* attempt(options: StreamModelOptions): AsyncGenerator<ModelStreamPart, AttemptEnd, undefined> {
  const { signal } = options;
  if (signal?.aborted) throw new CancelledError();
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const armTimer = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error('idle timeout'));
    }, options.idleTimeoutMs);
  };

  let streamedOutput = false;
  const held: ModelStreamPart[] = [];
  let holding = false;
  const reasoning = new Map<string, { text: string; metadata: JsonObject | undefined }>();
  let reader: ReadableStreamDefaultReader<LanguageModelV4StreamPart> | undefined;

  const fail = (error: unknown): AttemptEnd => attemptFailure({ options, error, timedOut, streamedOutput });

  try {
    armTimer();
    let result: Awaited<ReturnType<LanguageModelV4['doStream']>>;
    try {
      result = await options.model.doStream({ ...options.callOptions, abortSignal: controller.signal });
    } catch (error) {
      return fail(error);
    }
    reader = result.stream.getReader();
    for (;;) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch (error) {
        return yield* releaseText(held, fail(error));
      }
      armTimer();
      if (next.done) return yield* releaseText(held, fail(cutError(options)));
      const part = next.value;
      switch (part.type) {
        case 'text-delta': {
          if (part.delta.length === 0) break;
          const output: ModelStreamPart = { type: 'text-delta', delta: part.delta };
          if (holding) held.push(output);
          else {
            streamedOutput = true;
            yield output;
          }
          break;
        }
        case 'reasoning-start':
          reasoning.set(part.id, { text: '', metadata: part.providerMetadata as JsonObject | undefined });
          break;
        case 'reasoning-delta':
          appendReasoning(reasoning, part);
          break;
        case 'reasoning-end': {
          const output = finishReasoning(reasoning, part, options.decorateReasoning);
          if (holding) held.push({ type: 'reasoning', part: output });
          else {
            streamedOutput = true;
            yield { type: 'reasoning', part: output };
          }
          break;
        }
        case 'tool-call': {
          if (part.providerExecuted === true) break;
          holding = true;
          held.push(toolCallPartOf(part));
          break;
        }
        case 'error':
          return yield* releaseText(held, fail(part.error));
        case 'finish': {
          const failure = finishFailure(part, options);
          if (failure !== undefined) return yield* releaseText(held, fail(failure));
          yield* held;
          yield { type: 'finish', finishReason: toCoreFinishReason(part.finishReason), usage: toCoreUsage(part.usage) };
          return { kind: 'done' };
        }
        default:
          break;
      }
    }
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    if (reader !== undefined) {
      controller.abort();
      void reader.cancel().catch(() => {});
    }
  }
}

type StreamPartOf<Type extends LanguageModelV4StreamPart['type']> = Extract<LanguageModelV4StreamPart, { type: Type }>;
type ReasoningDrafts = Map<string, { text: string; metadata: JsonObject | undefined }>;

/** How an attempt ended when it failed: cancelled (thrown), idle too long, or the provider's error, classified. */
function attemptFailure(input: {
  readonly options: StreamModelOptions;
  readonly error: unknown;
  readonly timedOut: boolean;
  readonly streamedOutput: boolean;
}): AttemptEnd {
  const { options, error } = input;
  if (options.signal?.aborted) throw new CancelledError();
  if (input.timedOut) {
    return {
      kind: 'failed',
      streamedOutput: true,
      error: new TransportError({
        message: `${options.errors.providerLabel} at ${options.errors.baseURL} sent nothing for ${options.idleTimeoutMs} ms; the request was abandoned. Try again, or raise the idle timeout for slow models.`,
        isRetryable: true,
        cause: error,
      }),
    };
  }
  return { kind: 'failed', error: classifyProviderError(error, options.errors), streamedOutput: input.streamedOutput };
}

function appendReasoning(reasoning: ReasoningDrafts, part: StreamPartOf<'reasoning-delta'>): void {
  const current = reasoning.get(part.id) ?? { text: '', metadata: undefined };
  reasoning.set(part.id, {
    text: current.text + part.delta,
    metadata: (part.providerMetadata as JsonObject | undefined) ?? current.metadata,
  });
}

/** The finished reasoning part, with its provider metadata decorated; its draft is dropped. */
function finishReasoning(
  reasoning: ReasoningDrafts,
  part: StreamPartOf<'reasoning-end'>,
  decorate: StreamModelOptions['decorateReasoning'],
): ReasoningPart {
  const current = reasoning.get(part.id) ?? { text: '', metadata: undefined };
  reasoning.delete(part.id);
  const metadata =
    decorate?.((part.providerMetadata as JsonObject | undefined) ?? current.metadata) ?? current.metadata;
  return {
    type: 'reasoning',
    text: current.text,
    ...(metadata === undefined ? {} : { providerMetadata: metadata }),
  };
}

function toolCallPartOf(part: StreamPartOf<'tool-call'>): ModelStreamPart {
  return {
    type: 'tool-call',
    part: {
      type: 'tool-call',
      toolCallId: part.toolCallId,
      toolName: part.toolName,
      input: parseToolInput(part.input),
      ...(part.providerMetadata === undefined ? {} : { providerMetadata: part.providerMetadata as JsonObject }),
    },
  };
}

/** Why a finish part does not complete the step (cut off, or ended with an error); undefined when it does. */
function finishFailure(part: StreamPartOf<'finish'>, options: StreamModelOptions): Error | undefined {
  // Chat Completions adapters report a stream that ended without any finish reason as other/undefined.
  const interrupted =
    part.finishReason.unified === 'interrupted' ||
    (part.finishReason.unified === 'other' && part.finishReason.raw === undefined);
  if (interrupted) return cutError(options);
  if (part.finishReason.unified === 'error') {
    return new TransportError({
      message: `${options.errors.providerLabel} ended the response with an error.`,
      isRetryable: true,
    });
  }
  return undefined;
}

/** Yields held text deltas (never held tool calls or reasoning) before the failure is reported. */
async function* releaseText(
  held: readonly ModelStreamPart[],
  end: AttemptEnd,
): AsyncGenerator<ModelStreamPart, AttemptEnd, undefined> {
  const text = held.filter((part) => part.type === 'text-delta');
  yield* text;
  return end.kind === 'failed' && text.length > 0 ? { ...end, streamedOutput: true } : end;
}

function cutError(options: StreamModelOptions): TransportError {
  return new TransportError({
    message: `The stream from ${options.errors.providerLabel} at ${options.errors.baseURL} ended before the response completed. Partial text was kept; no tool call from the incomplete response was run.`,
    isRetryable: true,
  });
}

function parseToolInput(input: string): JsonValue {
  if (input.trim().length === 0) return {};
  try {
    return JSON.parse(input) as JsonValue;
  } catch {
    return input;
  }
}
