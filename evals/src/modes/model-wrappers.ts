import { nativeCompactionInput } from '../policy/summaries.js';
import {
  wrapModelAdapter,
  type Message,
  type ModelAdapter,
  type ModelCallOptions,
  type ModelRequest,
  type ModelStreamPart,
  type TokenCategories,
  type TokenEstimate,
  type ToolResultPart,
} from '@forge/core';

/** One provider request as the harness recorded it. */
export interface RecordedRequest {
  /** Turn of the session the request was made in. */
  readonly turn: number;
  readonly purpose: 'agent' | 'summary';
  /** Forge's estimate of the request (the adapter's estimator). */
  readonly estimatedTokens: number;
  /**
   * Forge's estimate of the same request with the whole stored transcript as history and no
   * checkpoint: what mode `off` would send at this point.
   */
  readonly fullHistoryTokens: number;
  readonly categories: TokenCategories;
  /** Input tokens the provider reported; undefined when it reported none (for example on an error). */
  readonly providerInputTokens: number | undefined;
  /** Of those, what the provider served from its prompt cache, and wrote to it (undefined: not reported). */
  readonly cachedInputTokens: number | undefined;
  readonly cacheWriteTokens: number | undefined;
  readonly outputTokens: number | undefined;
  /** `ContextOverflowError` and other errors the call ended with. */
  readonly error: string | undefined;
  readonly historyMessages: number;
  readonly checkpointChars: number;
  /** The tool calls whose results end the request's continuation: the step this request is, answers them. */
  readonly answersToolCalls: readonly string[];
  /**
   * On the first agent request of the run that does not send the whole stored history verbatim (a
   * checkpoint, provider state, dropped messages or a projected tool output): the tokens of the
   * history and continuation it still sends verbatim. Undefined on every other request.
   */
  readonly keptVerbatimTokens?: number;
}

const REPLACED_OUTPUT = /^\[tool output (projected|out of date):/;

function partText(part: ToolResultPart): string {
  return part.output.type === 'json' ? JSON.stringify(part.output.value) : part.output.value;
}

/** True when some of the request's history or continuation is not the stored transcript as it is: the first projection or compaction. */
function reducesHistory(request: ModelRequest, stored: readonly Message[]): boolean {
  if (request.checkpoint !== undefined || request.nativeState !== undefined || request.history.length < stored.length)
    return true;
  return [...request.history, ...request.continuation].some(
    (message) =>
      message.role === 'tool' && message.content.some((part) => partText(part).startsWith('[tool output projected:')),
  );
}

/**
 * The messages of a request sent verbatim: history messages the stored transcript holds (after
 * any covered by provider state) and the continuation, without tool outputs replaced by a
 * projection or an out-of-date note.
 */
function verbatimMessages(request: ModelRequest, stored: readonly Message[]): Message[] {
  const storedText = new Set(stored.map((message) => JSON.stringify(message)));
  const covered = request.nativeState?.sourceMessages ?? 0;
  const kept: Message[] = [];
  for (const [index, message] of [...request.history, ...request.continuation].entries()) {
    const inHistory = index < request.history.length;
    if (inHistory && index < covered) continue;
    if (message.role === 'tool') {
      const content = message.content.filter((part) => !REPLACED_OUTPUT.test(partText(part)));
      if (content.length > 0) kept.push({ ...message, content });
    } else if (!inHistory || storedText.has(JSON.stringify(message))) kept.push(message);
  }
  return kept;
}

function answeredCalls(request: ModelRequest): string[] {
  const last = request.continuation.at(-1);
  return last?.role === 'tool' ? last.content.map((part) => part.toolCallId) : [];
}

/** Called with every request before it is sent; returns the names of safety invariants it breaks. */
export type RequestCheck = (request: ModelRequest) => readonly string[];

/**
 * Wraps a model and records every request it is sent with its estimate and the usage the
 * provider reported; `check` runs on each request before it goes out. The wrapped model is
 * called unchanged.
 */
export class RecordingModel implements ModelAdapter {
  readonly specificationVersion = 'forge-model-v1' as const;
  readonly requests: RecordedRequest[] = [];
  readonly violations: { readonly turn: number; readonly invariant: string }[] = [];
  turn = 0;
  check: RequestCheck = () => [];
  /** The stored transcript before the current turn, for `fullHistoryTokens`. */
  fullHistory: () => readonly Message[] = () => [];
  private keptMeasured = false;

  constructor(
    private readonly inner: ModelAdapter,
    private readonly purpose: RecordedRequest['purpose'],
  ) {
    const compact = inner.compact;
    if (compact !== undefined) {
      // A provider's own compaction is a summary call: recorded with its cost, never as an agent request.
      this.compact = async (request, options) => {
        const estimate = await inner.estimateRequestTokens(nativeCompactionInput(request));
        const state = await compact.call(inner, request, options);
        this.requests.push({
          turn: this.turn,
          purpose: 'summary',
          estimatedTokens: estimate.tokens,
          fullHistoryTokens: estimate.tokens,
          categories: estimate.categories,
          providerInputTokens: undefined,
          cachedInputTokens: undefined,
          cacheWriteTokens: undefined,
          outputTokens: Math.ceil(state.bytes / 4),
          error: undefined,
          historyMessages: request.messages.length,
          checkpointChars: 0,
          answersToolCalls: [],
        });
        return state;
      };
    }
  }

  compact?: NonNullable<ModelAdapter['compact']>;

  get provider(): string {
    return this.inner.provider;
  }

  get modelId(): string {
    return this.inner.modelId;
  }

  get capabilities(): ModelAdapter['capabilities'] {
    return this.inner.capabilities;
  }

  estimateRequestTokens(request: ModelRequest): Promise<TokenEstimate> {
    return this.inner.estimateRequestTokens(request);
  }

  countMessageTokens(messages: readonly Message[]): Promise<readonly number[]> {
    return this.inner.countMessageTokens(messages);
  }

  async *doStream(request: ModelRequest, options: ModelCallOptions): AsyncIterable<ModelStreamPart> {
    for (const invariant of this.check(request)) this.violations.push({ turn: this.turn, invariant });
    const estimate = await this.inner.estimateRequestTokens(request);
    const { checkpoint: _checkpoint, nativeState: _nativeState, ...plain } = request;
    const full = await this.inner.estimateRequestTokens({ ...plain, history: this.fullHistory() });
    let keptVerbatimTokens: number | undefined;
    if (this.purpose === 'agent' && !this.keptMeasured && reducesHistory(request, this.fullHistory())) {
      this.keptMeasured = true;
      keptVerbatimTokens = (await this.inner.countMessageTokens(verbatimMessages(request, this.fullHistory()))).reduce(
        (total, tokens) => total + tokens,
        0,
      );
    }
    let providerInputTokens: number | undefined;
    let cachedInputTokens: number | undefined;
    let cacheWriteTokens: number | undefined;
    let outputTokens: number | undefined;
    let error: string | undefined;
    try {
      for await (const part of this.inner.doStream(request, options)) {
        if (part.type === 'finish') {
          providerInputTokens = part.usage.inputTokens;
          cachedInputTokens = part.usage.cacheReadTokens;
          cacheWriteTokens = part.usage.cacheWriteTokens;
          outputTokens = part.usage.outputTokens;
        }
        yield part;
      }
    } catch (caught) {
      error = caught instanceof Error ? `${caught.name}: ${caught.message}` : String(caught);
      throw caught;
    } finally {
      this.requests.push({
        turn: this.turn,
        purpose: this.purpose,
        estimatedTokens: estimate.tokens,
        fullHistoryTokens: full.tokens,
        categories: estimate.categories,
        providerInputTokens,
        cachedInputTokens,
        cacheWriteTokens,
        outputTokens,
        error,
        historyMessages: request.history.length,
        checkpointChars: request.checkpoint?.length ?? 0,
        answersToolCalls: answeredCalls(request),
        ...(keptVerbatimTokens === undefined ? {} : { keptVerbatimTokens }),
      });
    }
  }
}

/**
 * A model that receives `checkpoint()` as the request's checkpoint view. The harness uses it to
 * install a checkpoint when the run loop cannot take one itself.
 */
export function withCheckpoint(inner: ModelAdapter, checkpoint: string | undefined): ModelAdapter {
  if (checkpoint === undefined) return inner;
  return wrapModelAdapter({
    model: inner,
    middleware: { transformRequest: (request) => ({ ...request, checkpoint }), compact: false },
  });
}

/**
 * `inner` as a client without context management sees it: no window at all, so nothing is ever
 * held back before the call, and the provider alone decides (and refuses what is too long).
 */
export function withoutWindow(inner: ModelAdapter): ModelAdapter {
  return wrapModelAdapter({
    model: inner,
    middleware: {
      capabilities: (capabilities) => ({
        ...capabilities,
        contextWindowTokens: Number.MAX_SAFE_INTEGER,
        source: 'config',
      }),
      compact: false,
    },
  });
}
