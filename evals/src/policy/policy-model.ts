import { ContextOverflowError, hashMessages, sha256Hex } from '@forge/core';
import type * as core from '@forge/core';
import {
  cacheableTokens,
  createPromptCacheSimulator,
  promptCacheText,
  type PromptCacheSimulator,
} from '@forge/core/pricing';
import type { ExpandedFixture } from '../fixture/expand.js';
import { DEFAULT_PRICE_SHEET, type EvalPriceSheet } from '../pricing/eval-prices.js';
import { MODEL_CALL_MS, type EvalClock } from '../run/eval-clock.js';
import { decideNextAction, findTurn, type FactUse, type ReadIntent } from './agent.js';
import { playedCounters, type PlayedCounters, type PlayedModel } from './counting.js';
import { agentHabits, DEFAULT_AGENT, type AgentHabits, type AgentName } from './habits.js';
import {
  isCompactorRequest,
  nativeCompactionInput,
  SUMMARY_REQUEST,
  writeStructuredSummary,
  writeSummary,
} from './summaries.js';
import { checkpointSegments, viewRequest, type RequestView, type Segment } from './request-view.js';

export interface PolicyModelOptions {
  readonly fixture: ExpandedFixture;
  /** Advertise provider-native compaction (`opaque-provider-item`) and implement `compact`. */
  readonly nativeCompaction?: boolean;
  /** Which agent plays: how it uses the context tools (default `cooperative`). */
  readonly agent?: AgentName;
  /** The prices the model advertises and its provider's prompt-cache rules (default: the `openai` sheet). */
  readonly priceSheet?: EvalPriceSheet;
  /** The session's clock: each call happens at its time and advances it by {@link MODEL_CALL_MS}. Default: a clock of its own. */
  readonly clock?: EvalClock;
}

/** One provider call as the policy model's provider saw it. */
export interface PolicyCall {
  readonly kind: 'agent' | 'summary' | 'unknown';
  /** Turn the request belongs to (by its current request), when the model recognised it. */
  readonly turn: number | undefined;
  /** What the simulated provider counted: it reports this as input usage. */
  readonly providerInputTokens: number;
  /** Of those, what the simulated prompt cache served. */
  readonly cachedTokens: number;
  readonly outputTokens: number;
  /** True when the provider rejected the request as too long for the window. */
  readonly overflow: boolean;
  readonly injectedFault: boolean;
}

const PROVIDER = 'policy';

/** A request as the provider receives it: provider-native state's items replace what they cover. */
interface ReplayedRequest {
  readonly effective: core.ModelRequest;
  readonly items?: readonly core.JsonObject[];
  /** The items as the provider receives them (JSON), when there are any. */
  readonly itemsText?: string;
}

/**
 * A model adapter that plays a fixture's agent honestly: every reply is decided from the request
 * it receives (rendered to text; see knowledge.ts for what counts as known), never from Forge's
 * internals or from what it did before. Its simulated provider rejects requests larger than the
 * window with `ContextOverflowError` and reports its own token count as usage, so estimator error
 * is measured against a different counter than Forge's.
 */
export class PolicyModel implements core.ModelAdapter {
  readonly specificationVersion = 'forge-model-v1' as const;
  readonly provider = PROVIDER;
  readonly modelId: string;
  readonly capabilities: core.ModelCapabilities;
  /** Every provider call, in order. */
  readonly calls: PolicyCall[] = [];
  /** Facts stated in answers and where the agent took them from. */
  readonly factsUsed: FactUse[] = [];
  /** Why the agent made each of its reads and which fact it needed, by tool call id. */
  readonly reads = new Map<string, ReadIntent>();
  readonly habits: AgentHabits;
  private readonly fixture: ExpandedFixture;
  private readonly counters: Promise<PlayedCounters>;
  private readonly pendingFaults: Set<number>;
  private readonly cache: PromptCacheSimulator;
  private readonly sheet: EvalPriceSheet;
  private readonly clock: EvalClock | undefined;
  private ownTime = 0;

  constructor(options: PolicyModelOptions) {
    this.fixture = options.fixture;
    this.modelId = `agent-${options.fixture.fixture.id}`;
    this.habits = agentHabits(options.agent ?? DEFAULT_AGENT, options.fixture.fixture.id);
    const played: PlayedModel = options.fixture.fixture.model.plays;
    this.counters = playedCounters(played);
    this.capabilities = {
      contextWindowTokens: options.fixture.fixture.model.contextWindowTokens,
      maxOutputTokens: options.fixture.fixture.model.maxOutputTokens,
      nativeCompaction: options.nativeCompaction === true ? 'opaque-provider-item' : 'unsupported',
      continuationProjection: 'adapter-owned',
      estimation: played === 'openai' ? 'provider-tokenizer' : 'conservative-fallback',
      source: 'table',
      prices: (options.priceSheet ?? DEFAULT_PRICE_SHEET).prices,
      promptCache: (options.priceSheet ?? DEFAULT_PRICE_SHEET).promptCache,
    };
    this.sheet = options.priceSheet ?? DEFAULT_PRICE_SHEET;
    this.clock = options.clock;
    this.cache = createPromptCacheSimulator({
      rules: this.sheet.promptCache,
      countTokens: (text) => Math.ceil(text.length / 4),
    });
    this.pendingFaults = new Set(
      options.fixture.turns.filter((turn) => turn.fault === 'overflow-once').map((turn) => turn.index),
    );
    if (options.nativeCompaction === true) this.compact = (request) => this.compactNatively(request);
  }

  compact?: (
    request: core.NativeCompactionRequest,
    options: core.ModelCallOptions,
  ) => Promise<core.OpaqueProviderState>;

  async countMessageTokens(messages: readonly core.Message[]): Promise<readonly number[]> {
    return (await this.counters).forge.countMessages(messages);
  }

  async estimateRequestTokens(request: core.ModelRequest): Promise<core.TokenEstimate> {
    const { effective, itemsText } = this.replay(request);
    const estimate = (await this.counters).forge.estimate(effective);
    if (itemsText === undefined) return estimate;
    const itemTokens = Math.ceil(itemsText.length / 4);
    return {
      ...estimate,
      tokens: estimate.tokens + itemTokens,
      categories: { ...estimate.categories, checkpoint: estimate.categories.checkpoint + itemTokens },
    };
  }

  /**
   * What the provider actually receives. With this provider's native state, the state's items
   * stand in for the checkpoint view and for the history messages they were made from (when the
   * history starts with exactly those), as a hosted compaction item does.
   */
  private replay(request: core.ModelRequest): ReplayedRequest {
    const state = request.nativeState;
    if (state === undefined || state.provider !== PROVIDER || state.modelId !== this.modelId)
      return { effective: request };
    const { checkpoint: _checkpoint, nativeState: _state, ...rest } = request;
    const covered =
      state.sourceMessages > 0 &&
      request.history.length >= state.sourceMessages &&
      hashMessages(request.history.slice(0, state.sourceMessages)) === state.sourceHash;
    return {
      effective: { ...rest, history: covered ? request.history.slice(state.sourceMessages) : request.history },
      items: state.items,
      itemsText: JSON.stringify(state.items),
    };
  }

  /** The request as text segments, with provider-native state expanded as the provider would. */
  private view({ effective, items }: ReplayedRequest): RequestView {
    const base = viewRequest(effective);
    if (items === undefined) return base;
    const expanded: Segment[] = [];
    for (const item of items) {
      if (item['type'] === 'user' && typeof item['text'] === 'string')
        expanded.push({ kind: 'user', place: 'history', text: item['text'] });
      if (item['type'] === 'summary' && typeof item['text'] === 'string')
        expanded.push(...checkpointSegments(`[PROVIDER_ITEM]\n${item['text']}`));
    }
    const instructions = base.segments.filter((segment) => segment.place === 'instructions');
    const rest = base.segments.filter((segment) => segment.place !== 'instructions');
    return { ...base, segments: [...instructions, ...expanded, ...rest] };
  }

  async *doStream(request: core.ModelRequest, options: core.ModelCallOptions): AsyncIterable<core.ModelStreamPart> {
    options.signal?.throwIfAborted();
    const replayed = this.replay(request);
    const view = this.view(replayed);
    const compactor = isCompactorRequest(view);
    const summary = compactor || view.currentRequest.startsWith(SUMMARY_REQUEST);
    const turn = summary ? undefined : findTurn(this.fixture, view);
    const inputTokens = await this.providerTokens(replayed.effective, replayed.itemsText);
    const kind = summary ? 'summary' : turn === undefined ? 'unknown' : 'agent';
    const record = (outputTokens: number, overflow: boolean, injectedFault: boolean, cachedTokens = 0) =>
      this.calls.push({
        kind,
        turn: turn?.index,
        providerInputTokens: inputTokens,
        cachedTokens,
        outputTokens,
        overflow,
        injectedFault,
      });

    if (inputTokens > this.capabilities.contextWindowTokens) {
      record(0, true, false);
      throw new ContextOverflowError({
        message: `The request has ${inputTokens} tokens; this model accepts ${this.capabilities.contextWindowTokens}.`,
        limitTokens: this.capabilities.contextWindowTokens,
      });
    }
    if (turn !== undefined && this.pendingFaults.delete(turn.index)) {
      record(0, true, true);
      throw new ContextOverflowError({
        message: 'The provider reported a context overflow (injected fault).',
        limitTokens: this.capabilities.contextWindowTokens,
      });
    }

    const served = this.servePrefix(options.promptCacheKey, replayed, inputTokens);
    let text = '';
    let calls: { toolCallId: string; toolName: string; input: core.JsonObject }[] = [];
    if (compactor) text = writeStructuredSummary(this.fixture, view);
    else if (summary) text = writeSummary(this.fixture, view);
    else if (turn === undefined) text = 'I do not recognise this request, so I have nothing to do.';
    else {
      const action = decideNextAction(this.fixture, turn, view, {
        habits: this.habits,
        fill: inputTokens / this.capabilities.contextWindowTokens,
      });
      if (action.kind === 'answer') {
        text = action.text;
        this.factsUsed.push(...action.factsUsed);
      } else {
        calls = action.calls.map(({ toolCallId, toolName, input }) => ({ toolCallId, toolName, input }));
        for (const call of action.calls) if (call.read !== undefined) this.reads.set(call.toolCallId, call.read);
      }
    }
    const outputTokens = Math.ceil(
      (text.length + calls.reduce((total, call) => total + JSON.stringify(call.input).length, 0)) / 4,
    );
    record(outputTokens, false, false, served.cachedTokens);
    if (text.length > 0) yield { type: 'text-delta', delta: text };
    for (const call of calls) yield { type: 'tool-call', part: { type: 'tool-call', ...call } };
    yield {
      type: 'finish',
      finishReason: calls.length === 0 ? 'stop' : 'tool-calls',
      usage: {
        inputTokens,
        cacheReadTokens: served.cachedTokens,
        cacheWriteTokens: served.writtenTokens,
        outputTokens,
        reasoningTokens: undefined,
      },
    };
  }

  /**
   * The simulated provider's prompt cache, with the rules of the price sheet's provider (OpenAI's
   * documented ones by default): the request is served from the longest prefix it shares with a
   * recent request of the same cache key (the run's `promptCacheKey`; summary calls share one per
   * model), then cached itself. The simulator measures the request in quarter characters; the
   * share it served is applied to the provider's own count and rounded down as the rules say.
   * Writes are reported only when the sheet bills them, as providers do.
   */
  private servePrefix(
    key: string | undefined,
    { effective, itemsText }: ReplayedRequest,
    inputTokens: number,
  ): { readonly cachedTokens: number; readonly writtenTokens: number | undefined } {
    const at = this.clock?.now() ?? (this.ownTime += MODEL_CALL_MS);
    this.clock?.advance(MODEL_CALL_MS);
    const sent = itemsText === undefined ? effective : { ...effective, checkpoint: itemsText };
    const simulated = this.cache.request({ key: key ?? `${this.modelId}:summaries`, text: promptCacheText(sent), at });
    const share = simulated.inputTokens === 0 ? 0 : simulated.cachedTokens / simulated.inputTokens;
    const rules = this.sheet.promptCache;
    const cachedTokens = cacheableTokens(Math.floor(share * inputTokens), inputTokens, rules);
    const writtenTokens =
      this.sheet.prices.cacheWritePerMillion === undefined
        ? undefined
        : Math.max(0, cacheableTokens(inputTokens, inputTokens, rules) - cachedTokens);
    return { cachedTokens, writtenTokens };
  }

  /** What the simulated provider counts for a request it receives, with `extraText` (replayed items) on top. */
  private async providerTokens(request: core.ModelRequest, extraText = ''): Promise<number> {
    const { provider } = await this.counters;
    const extra = extraText.length === 0 ? 0 : provider.countMessage({ role: 'user', content: extraText });
    return provider.estimate(request).tokens + extra;
  }

  /**
   * The simulated provider's own compaction: it keeps the most recent user messages verbatim and
   * a summary written by the model, like a hosted compaction endpoint. The state is opaque to
   * Forge; only this provider expands it.
   */
  private async compactNatively(request: core.NativeCompactionRequest): Promise<core.OpaqueProviderState> {
    const previous = request.previous?.provider === PROVIDER ? request.previous.items : [];
    const previousUsers = previous
      .filter((item) => item['type'] === 'user')
      .map((item): core.Message => ({ role: 'user', content: String(item['text']) }));
    const messages = [...previousUsers, ...request.messages];
    const previousSummary = previous.find((item) => item['type'] === 'summary');
    const view = viewRequest({
      instructions: request.instructions,
      ...(previousSummary === undefined ? {} : { checkpoint: `[PROVIDER_ITEM]\n${String(previousSummary['text'])}` }),
      history: messages,
      currentRequest: { role: 'user', content: SUMMARY_REQUEST },
      continuation: [],
      tools: [],
    });
    const users: core.JsonObject[] = [];
    let budget = 2000 * 4;
    for (const message of [...messages].reverse()) {
      if (message.role !== 'user' || message.content.length > budget) continue;
      budget -= message.content.length;
      users.unshift({ type: 'user', text: message.content });
    }
    const items: core.JsonObject[] = [...users, { type: 'summary', text: writeSummary(this.fixture, view) }];
    const serialized = JSON.stringify(items);
    const itemHash = sha256Hex(serialized);
    const providerInputTokens = await this.providerTokens(nativeCompactionInput(request));
    this.calls.push({
      kind: 'summary',
      turn: undefined,
      providerInputTokens,
      cachedTokens: 0,
      outputTokens: Math.ceil(serialized.length / 4),
      overflow: false,
      injectedFault: false,
    });
    return {
      provider: PROVIDER,
      modelId: this.modelId,
      itemHash,
      bytes: Buffer.byteLength(serialized, 'utf8'),
      items,
      sourceHash: hashMessages(request.messages),
      sourceMessages: request.messages.length,
      previousItemHash: request.previous?.itemHash ?? null,
    };
  }
}
