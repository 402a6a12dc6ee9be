import type { JsonObject, JsonValue } from '../json.js';
import type { AssistantMessage, Message, ToolMessage } from '../messages.js';
import type {
  ModelRequest,
  TokenCategories,
  TokenEstimate,
  TokenEstimateMethod,
  ToolDefinition,
} from '../model/adapter.js';
import { canonicalJsonStringify, hashCanonicalJson } from '../hashing.js';
import type { ChatLayout, LayoutPiece } from './chat-layout.js';

/**
 * Tokens a provider adds around content, which no tokenizer sees in the text itself. The
 * defaults are upper bounds taken from the published chat framing of OpenAI-style APIs (a message
 * costs about three tokens for its role and boundaries, a reply is primed with three) rounded up,
 * plus room for the fields that wrap tool calls, results and reasoning items.
 */
export interface FramingOverhead {
  /** Role and boundary markers around every message (instructions, checkpoint, each turn). */
  readonly perMessage: number;
  /** Wrapper of each tool call: its type, call id and argument fields. */
  readonly perToolCall: number;
  /** Wrapper of each tool result. */
  readonly perToolResult: number;
  /** Wrapper of each reasoning item. */
  readonly perReasoning: number;
  /** Wrapper of each advertised tool definition. */
  readonly perToolDefinition: number;
  /** Once per request: reply priming and the tool block header. */
  readonly perRequest: number;
  /** Share of all content tokens added as a margin for what cannot be counted offline (0–1). */
  readonly marginRatio: number;
}

export const DEFAULT_FRAMING_OVERHEAD: FramingOverhead = Object.freeze({
  perMessage: 4,
  perToolCall: 8,
  perToolResult: 6,
  perReasoning: 4,
  perToolDefinition: 10,
  perRequest: 8,
  marginRatio: 0,
});

export interface RequestEstimatorOptions {
  /** Tokens of one piece of text, for the model's tokenizer or a conservative stand-in. */
  readonly countText: (text: string) => number;
  readonly method: TokenEstimateMethod;
  /** `exact` when `countText` is the provider's tokenizer; framing is modelled either way. */
  readonly confidence: 'exact' | 'estimated';
  readonly overhead?: Partial<FramingOverhead>;
  /**
   * The text a tool definition is counted as. Default: canonical JSON of
   * `{ type: 'function', name, description, parameters }`, the shape sent on the wire. Providers
   * render schemas more compactly for the model, so counting the wire JSON errs high.
   */
  readonly renderTool?: (tool: ToolDefinition) => string;
  /** Content-hash cache entries kept for messages that arrive as new objects (default 100,000). */
  readonly contentCacheSize?: number;
  /**
   * The provider's chat template, when it is known: the template's own text is then tokenized
   * like the content instead of being estimated, and `overhead` and `renderTool` are not used.
   */
  readonly layout?: ChatLayout;
}

/** Cache counters, for benchmarks and tests. */
export interface EstimatorCacheStats {
  /** Messages and texts that had to be tokenized. */
  readonly tokenized: number;
  /** Messages found by object identity. */
  readonly identityHits: number;
  /** Messages found by the hash of their canonical JSON. */
  readonly contentHits: number;
}

/** Estimates whole requests with one text counter; see {@link createRequestEstimator}. */
export interface RequestEstimator {
  estimate(request: ModelRequest): TokenEstimate;
  /** Tokens of one message with its framing: what the message adds to a request. */
  countMessage(message: Message): number;
  /** {@link RequestEstimator.countMessage} of each message, in order (the adapter's `countMessageTokens`). */
  countMessages(messages: readonly Message[]): number[];
  stats(): EstimatorCacheStats;
}

interface Cost {
  readonly content: number;
  readonly framing: number;
}

/** Opaque provider data (encrypted reasoning, item ids) is counted at one token per 4 characters of its JSON. */
const OPAQUE_CHARACTERS_PER_TOKEN = 4;

function opaqueTokens(metadata: JsonObject | undefined): number {
  return metadata === undefined ? 0 : Math.ceil(canonicalJsonStringify(metadata).length / OPAQUE_CHARACTERS_PER_TOKEN);
}

const NO_COST: Cost = { content: 0, framing: 0 };

function renderToolAsWireJson(tool: ToolDefinition): string {
  return canonicalJsonStringify({
    type: 'function',
    name: tool.name,
    description: tool.description,
    parameters: tool.inputSchema,
  });
}

/**
 * Builds a request estimator around a text counter. It counts every category of a
 * `ModelRequest` — instructions, checkpoint, history, current request, continuation (tool calls
 * with their JSON arguments, tool results, reasoning items) and tool schemas — and puts framing
 * plus the margin in `overhead`, so the categories always sum to `tokens`.
 *
 * Counts are cached per message: by object identity first (the agent loop passes the same message
 * objects to every step), then by the SHA-256 of the message's canonical JSON (messages reloaded
 * from disk), so a warm preflight tokenizes only what is new. Messages are treated as immutable.
 */
export function createRequestEstimator(options: RequestEstimatorOptions): RequestEstimator {
  const overhead: FramingOverhead = { ...DEFAULT_FRAMING_OVERHEAD, ...options.overhead };
  const stats: CacheCounters = { tokenized: 0, identityHits: 0, contentHits: 0 };
  const measuring: Measuring = {
    counters: createTextCounters(options.countText, stats),
    overhead,
    layout: options.layout,
  };
  const costOf = createMessageCostCache(
    (message) => measureMessage(message, measuring),
    options.contentCacheSize ?? 100_000,
    stats,
  );
  const toolCost = createToolCostCache(measuring, options.renderTool ?? renderToolAsWireJson);
  const sum = createListSummer(costOf);
  const messageTokens = (message: Message): number => {
    const cost = costOf(message);
    return cost.content + cost.framing + Math.ceil(cost.content * overhead.marginRatio);
  };

  return {
    estimate(request) {
      const parts: RequestParts = {
        history: sum(request.history),
        continuation: sum(request.continuation),
        current: costOf(request.currentRequest),
        system: measureSystem(request, measuring),
        tools: sumToolCosts(request.tools, toolCost),
      };
      const categories = categoriesOf(parts, overhead.marginRatio);
      const tokens =
        categories.instructions +
        categories.checkpoint +
        categories.history +
        categories.request +
        categories.continuation +
        categories.toolSchemas +
        categories.overhead;
      return { tokens, method: options.method, confidence: options.confidence, categories };
    },
    countMessage: messageTokens,
    countMessages: (messages) => messages.map(messageTokens),
    stats: () => ({ tokenized: stats.tokenized, identityHits: stats.identityHits, contentHits: stats.contentHits }),
  };
}

type CacheCounters = { -readonly [K in keyof EstimatorCacheStats]: number };

interface TextCounters {
  /** Tokens of a piece of content (counted as tokenized). */
  readonly countText: (text: string) => number;
  /** Like `countText`, for long texts that repeat on every step (instructions, checkpoint). */
  readonly countRepeatedText: (text: string) => number;
  /** A chat layout's pieces: template text as framing, content (less its own frame) as content. */
  readonly countPieces: (pieces: readonly LayoutPiece[], count?: (text: string) => number) => Cost;
}

/** What every measurement of a request part needs. */
interface Measuring {
  readonly counters: TextCounters;
  readonly overhead: FramingOverhead;
  readonly layout: ChatLayout | undefined;
}

function createTextCounters(count: (text: string) => number, stats: CacheCounters): TextCounters {
  const byText = new Map<string, number>();
  const frames = new Map<string, number>();

  const countText = (text: string): number => {
    if (text.length === 0) return 0;
    stats.tokenized += 1;
    return count(text);
  };

  // Instructions and checkpoint are long and repeat on every step: keep the last few.
  const countRepeatedText = (text: string): number => {
    const known = byText.get(text);
    if (known !== undefined) return known;
    const tokens = countText(text);
    if (byText.size >= 8) byText.delete(byText.keys().next().value as string);
    byText.set(text, tokens);
    return tokens;
  };

  // Template text repeats endlessly (role markers, separators): count each distinct piece once.
  const countFrame = (text: string): number => {
    if (text.length === 0) return 0;
    let tokens = frames.get(text);
    if (tokens === undefined) {
      tokens = count(text);
      if (frames.size >= 1024) frames.delete(frames.keys().next().value as string);
      frames.set(text, tokens);
    }
    return tokens;
  };

  const countPieces = (pieces: readonly LayoutPiece[], countContent: (text: string) => number = countText): Cost => {
    let content = 0;
    let framing = 0;
    for (const piece of pieces) {
      if (typeof piece === 'string') {
        framing += countFrame(piece);
        continue;
      }
      const before = piece.before ?? '';
      const after = piece.after ?? '';
      const total = countContent(before + piece.content + after);
      const frame = Math.min(total, countFrame(before) + countFrame(after));
      content += total - frame;
      framing += frame;
    }
    return { content, framing };
  };

  return { countText, countRepeatedText, countPieces };
}

function measureAssistant(
  message: AssistantMessage,
  countText: (text: string) => number,
  overhead: FramingOverhead,
): Cost {
  let content = 0;
  let framing = overhead.perMessage;
  for (const part of message.content) {
    switch (part.type) {
      case 'text':
        content += countText(part.text);
        break;
      case 'reasoning':
        content += countText(part.text) + opaqueTokens(part.providerMetadata);
        framing += overhead.perReasoning;
        break;
      case 'tool-call':
        content +=
          countText(part.toolName) +
          countText(part.toolCallId) +
          countText(JSON.stringify(part.input)) +
          opaqueTokens(part.providerMetadata);
        framing += overhead.perToolCall;
        break;
    }
  }
  return { content, framing };
}

function measureToolMessage(
  message: ToolMessage,
  countText: (text: string) => number,
  overhead: FramingOverhead,
): Cost {
  let content = 0;
  let framing = overhead.perMessage;
  for (const part of message.content) {
    const value = part.output.type === 'json' ? JSON.stringify(part.output.value) : part.output.value;
    content += countText(part.toolName) + countText(part.toolCallId) + countText(value);
    framing += overhead.perToolResult;
  }
  return { content, framing };
}

function measureMessage(message: Message, { counters, overhead, layout }: Measuring): Cost {
  if (layout !== undefined) return counters.countPieces(layout.message(message));
  if (message.role === 'user') return { content: counters.countText(message.content), framing: overhead.perMessage };
  return message.role === 'assistant'
    ? measureAssistant(message, counters.countText, overhead)
    : measureToolMessage(message, counters.countText, overhead);
}

/** A message's cost, found by object identity, else by the hash of its canonical JSON, else measured. */
function createMessageCostCache(
  measure: (message: Message) => Cost,
  contentCacheSize: number,
  stats: CacheCounters,
): (message: Message) => Cost {
  const byIdentity = new WeakMap<object, Cost>();
  const byContent = new Map<string, Cost>();
  return (message) => {
    const known = byIdentity.get(message);
    if (known !== undefined) {
      stats.identityHits += 1;
      return known;
    }
    const key = hashCanonicalJson(message as unknown as JsonValue);
    let cost = byContent.get(key);
    if (cost === undefined) {
      cost = measure(message);
      if (byContent.size >= contentCacheSize) byContent.delete(byContent.keys().next().value as string);
      byContent.set(key, cost);
    } else {
      stats.contentHits += 1;
    }
    byIdentity.set(message, cost);
    return cost;
  };
}

function createToolCostCache(
  { counters, overhead, layout }: Measuring,
  renderTool: (tool: ToolDefinition) => string,
): (tool: ToolDefinition) => Cost {
  const toolsBySchema = new WeakMap<
    object,
    { readonly name: string; readonly description: string; readonly cost: Cost }
  >();
  return (tool) => {
    const known = toolsBySchema.get(tool.inputSchema);
    if (known !== undefined && known.name === tool.name && known.description === tool.description) return known.cost;
    const cost =
      layout === undefined
        ? { content: counters.countRepeatedText(renderTool(tool)), framing: overhead.perToolDefinition }
        : counters.countPieces(layout.tool(tool), counters.countRepeatedText);
    toolsBySchema.set(tool.inputSchema, { name: tool.name, description: tool.description, cost });
    return cost;
  };
}

interface SystemCost {
  readonly instructions: Cost;
  readonly checkpoint: Cost;
  readonly request: number;
}

function measureSystem(request: ModelRequest, { counters, overhead, layout }: Measuring): SystemCost {
  const { countRepeatedText, countPieces } = counters;
  if (layout === undefined) {
    const checkpointTokens = request.checkpoint === undefined ? 0 : countRepeatedText(request.checkpoint);
    return {
      instructions: { content: countRepeatedText(request.instructions), framing: overhead.perMessage },
      checkpoint: { content: checkpointTokens, framing: request.checkpoint === undefined ? 0 : overhead.perMessage },
      request: overhead.perRequest,
    };
  }
  const context = { hasTools: request.tools.length > 0 };
  const framing = countPieces(layout.request(context));
  return {
    instructions: countPieces(layout.instructions(request.instructions, context), countRepeatedText),
    checkpoint:
      request.checkpoint === undefined
        ? NO_COST
        : countPieces(layout.checkpoint(request.checkpoint), countRepeatedText),
    request: framing.content + framing.framing,
  };
}

/*
 * Sums of recent message lists. A growing session passes a list that begins with the previous
 * one; confirming that by comparing object identities is much cheaper than looking every
 * message up again, so only the appended messages are visited.
 */
function createListSummer(costOf: (message: Message) => Cost): (messages: readonly Message[]) => Cost {
  const recentSums: { readonly messages: readonly Message[]; readonly cost: Cost }[] = [];
  return (messages) => {
    let start = 0;
    let content = 0;
    let framing = 0;
    for (const recent of recentSums) {
      const known = recent.messages;
      if (known.length > messages.length || known.length <= start) continue;
      let samePrefix = known.length === 0 || known[known.length - 1] === messages[known.length - 1];
      for (let index = 0; samePrefix && index < known.length; index += 1) samePrefix = known[index] === messages[index];
      if (samePrefix) {
        start = known.length;
        content = recent.cost.content;
        framing = recent.cost.framing;
      }
    }
    for (let index = start; index < messages.length; index += 1) {
      const cost = costOf(messages[index] as Message);
      content += cost.content;
      framing += cost.framing;
    }
    const cost = { content, framing };
    if (messages.length > 0) {
      recentSums.unshift({ messages: [...messages], cost });
      if (recentSums.length > 4) recentSums.pop();
    }
    return cost;
  };
}

function sumToolCosts(tools: readonly ToolDefinition[], toolCost: (tool: ToolDefinition) => Cost): Cost {
  let content = 0;
  let framing = 0;
  for (const tool of tools) {
    const cost = toolCost(tool);
    content += cost.content;
    framing += cost.framing;
  }
  return { content, framing };
}

interface RequestParts {
  readonly history: Cost;
  readonly continuation: Cost;
  readonly current: Cost;
  readonly system: SystemCost;
  readonly tools: Cost;
}

function categoriesOf(
  { history, continuation, current, system, tools }: RequestParts,
  marginRatio: number,
): TokenCategories {
  const content =
    system.instructions.content +
    system.checkpoint.content +
    history.content +
    current.content +
    continuation.content +
    tools.content;
  const framing =
    system.request +
    system.instructions.framing +
    system.checkpoint.framing +
    history.framing +
    current.framing +
    continuation.framing +
    tools.framing;
  return {
    instructions: system.instructions.content,
    checkpoint: system.checkpoint.content,
    history: history.content,
    request: current.content,
    continuation: continuation.content,
    toolSchemas: tools.content,
    overhead: framing + Math.ceil(content * marginRatio),
  };
}
