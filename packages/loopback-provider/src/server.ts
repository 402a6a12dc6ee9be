import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { countTextConservatively, type PromptCacheRules } from '@forge/core';
import { createPromptCacheSimulator, OPENAI_PROMPT_CACHE, type SimulatedUsage } from '@forge/core/pricing';
import {
  chatErrorEvent,
  chatTurnEvents,
  checkChatPairing,
  checkDeepSeekReasoningContent,
  type ChatUsageStyle,
} from './chat-protocol.js';
import {
  deltasOf,
  type HttpErrorReply,
  type LoopbackReply,
  type RecordedRequest,
  type ReplyFunction,
  type TurnReply,
} from './replies.js';
import {
  checkMessagesInput,
  countBreakpoints,
  messagesCompactionBody,
  messagesCompletionIndex,
  messagesErrorBody,
  messagesFailedEvents,
  messagesTurnEvents,
  signatureOf,
} from './messages-protocol.js';
import { cacheText } from './request-prefix.js';
import {
  checkResponsesInput,
  compactionBody,
  responsesFailedEvents,
  responsesTurnEvents,
} from './responses-protocol.js';
import { writeSse, writeSseHeaders, type SseEvent, type StreamEnding } from './sse.js';

export interface LoopbackProviderOptions {
  /** Usage fields of Chat Completions answers: DeepSeek's cache hit/miss counts, or OpenAI's. Default `openai`. */
  readonly chatUsageStyle?: ChatUsageStyle;
  /**
   * Enforce DeepSeek's thinking-mode rule (an assistant message with tool calls must carry its
   * `reasoning_content`) for Chat Completions requests this predicate accepts. Default: never.
   */
  readonly requireReasoningContent?: (body: Record<string, unknown>) => boolean;
  /** Refuse requests that break the provider's pairing rules, as the real services do. Default true. */
  readonly checkInput?: boolean;
  /**
   * Counts the input of each Chat Completions request, as a server with a real tokenizer does:
   * its result is the reported `prompt_tokens`, whatever the scripted reply's usage says (the
   * reply still sets the output and cache figures). A test and benchmark facility; see
   * `@forge/loopback-provider/chat-template` for a counter that renders a chat template.
   */
  readonly countPromptTokens?: (body: Record<string, unknown>) => number;
  /**
   * Simulate the provider's prompt cache: each turn reports its input tokens and the cached part
   * of them the way the rules say (OpenAI's by default), replacing the input counts of scripted
   * usage. Requests share a cache under their `prompt_cache_key`, else under their model. With
   * `countPromptTokens` too, that counter gives the input and the cached part never exceeds it.
   */
  readonly promptCache?: LoopbackPromptCacheOptions;
}

/** The server as DeepSeek: cache hit/miss usage, and thinking mode's `reasoning_content` rule for V4 models unless thinking is disabled. */
export const DEEPSEEK_LOOPBACK: LoopbackProviderOptions = {
  chatUsageStyle: 'deepseek',
  requireReasoningContent: (body) =>
    String(body['model']).includes('deepseek-v4') &&
    (body['thinking'] as { type?: string } | undefined)?.type !== 'disabled',
};

export interface LoopbackPromptCacheOptions {
  readonly rules?: PromptCacheRules;
  /** Counts the tokens of the request text (default: core's conservative counter; pass the provider's tokenizer for realism). */
  readonly countTokens?: (text: string) => number;
  /** Report cache writes too (`cache_write_tokens`), as providers that bill them do. Default false. */
  readonly reportWrites?: boolean;
  /** The clock of the cache's lifetime (default `Date.now`). */
  readonly now?: () => number;
}

/** A scripted provider on `127.0.0.1` speaking the OpenAI Responses, Chat Completions and Anthropic Messages protocols. */
export interface LoopbackProvider {
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  /** `origin + '/v1'`: what adapters take as their base URL. */
  readonly baseURL: string;
  /** Every request received, in order, including refused ones. */
  readonly requests: readonly RecordedRequest[];
  /** Replies for the next requests, in order. */
  enqueue(...replies: LoopbackReply[]): void;
  /** Computes replies once the queue is empty. */
  handle(reply: ReplyFunction): void;
  /** Replies still queued. */
  readonly pending: number;
  /** Treat a compaction item's encrypted content as issued by this server (it is otherwise refused). */
  acceptCompaction(encryptedContent: string): void;
  close(): Promise<void>;
}

/** Starts a loopback provider on an ephemeral port of 127.0.0.1 (never any other interface). */
export async function startLoopbackProvider(options: LoopbackProviderOptions = {}): Promise<LoopbackProvider> {
  const state: ProviderState = {
    options,
    queue: [],
    requests: [],
    issuedCompactions: new Set<string>(),
    issuedSignatures: new Set<string>(),
    emittedReasoning: new Map<string, string>(),
    handler: undefined,
    cache:
      options.promptCache === undefined
        ? undefined
        : createPromptCacheSimulator({
            rules: options.promptCache.rules ?? OPENAI_PROMPT_CACHE,
            countTokens: options.promptCache.countTokens ?? countTextConservatively,
          }),
    clock: options.promptCache?.now ?? Date.now,
  };
  const { queue, requests, issuedCompactions } = state;

  const server = createServer((request, response) => {
    void serve(state, request, response).catch((error: unknown) => {
      if (!response.headersSent)
        sendOpenAIError(response, {
          type: 'http-error',
          status: 500,
          message: `loopback provider failed: ${String(error)}`,
        });
      else response.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    origin,
    baseURL: `${origin}/v1`,
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    handle: (reply) => void (state.handler = reply),
    get pending() {
      return queue.length;
    },
    acceptCompaction: (encryptedContent) => void issuedCompactions.add(encryptedContent),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What a loopback provider keeps between requests. */
interface ProviderState {
  readonly options: LoopbackProviderOptions;
  readonly queue: LoopbackReply[];
  readonly requests: RecordedRequest[];
  readonly issuedCompactions: Set<string>;
  readonly issuedSignatures: Set<string>;
  readonly emittedReasoning: Map<string, string>;
  handler: ReplyFunction | undefined;
  readonly cache: ReturnType<typeof createPromptCacheSimulator> | undefined;
  readonly clock: () => number;
}

/** Answers one request: records it, checks its input, and sends the next scripted reply in the endpoint's protocol. */
async function serve(state: ProviderState, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const { options, requests, issuedCompactions } = state;
  const rawBody = await readBody(request);
  const recorded: RecordedRequest = {
    method: request.method ?? 'GET',
    path: (request.url ?? '/').split('?')[0] ?? '/',
    headers: lowerCaseHeaders(request),
    body: parseJson(rawBody),
    rawBody,
  };
  const index = requests.length;
  requests.push(recorded);
  const body = (typeof recorded.body === 'object' && recorded.body !== null ? recorded.body : {}) as Record<
    string,
    unknown
  >;
  const model = typeof body['model'] === 'string' ? body['model'] : 'unknown-model';
  const endpoint = endpointOf(recorded);
  const sendError = (target: ServerResponse, reply: HttpErrorReply): void =>
    endpoint === 'messages'
      ? sendJson(target, reply.status, messagesErrorBody(reply), reply.headers)
      : sendOpenAIError(target, reply);
  if (endpoint === undefined) {
    sendError(response, {
      type: 'http-error',
      status: 404,
      message: `loopback provider has no route for ${recorded.method} ${recorded.path}`,
    });
    return;
  }

  const refusal = options.checkInput === false ? undefined : refusalOf(state, endpoint, body);
  if (refusal !== undefined) {
    sendError(response, {
      type: 'http-error',
      status: 400,
      message: refusal,
      code: 'invalid_request_error',
      errorType: 'invalid_request_error',
    });
    return;
  }

  const reply = state.queue.shift() ?? state.handler?.(recorded, index);
  if (reply === undefined) {
    sendError(response, {
      type: 'http-error',
      status: 500,
      message: `loopback provider has no scripted reply for request ${index + 1} (${recorded.path})`,
    });
    return;
  }
  if (reply.type === 'http-error') {
    sendError(response, reply);
    return;
  }
  if (endpoint === 'compact') {
    if (reply.type !== 'compaction') throw new Error(`a ${reply.type} reply cannot answer /responses/compact`);
    const input = Array.isArray(body['input']) ? (body['input'] as Record<string, unknown>[]) : [];
    issuedCompactions.add(reply.encryptedContent);
    sendJson(response, 200, compactionBody(reply, input, index + 1, model));
    return;
  }
  if (endpoint === 'messages' && body['compaction'] !== undefined) {
    if (reply.type !== 'compaction') throw new Error(`a ${reply.type} reply cannot answer a compaction request`);
    issuedCompactions.add(reply.encryptedContent);
    sendJson(response, 200, messagesCompactionBody(reply, index + 1, model));
    return;
  }
  if (reply.type === 'compaction')
    throw new Error('a compaction reply can only answer /responses/compact or a Messages compaction request');
  const simulated = simulateCache(state, { endpoint, recorded, body, model });
  await stream(state, response, {
    endpoint,
    reply:
      simulated === undefined
        ? reply
        : withSimulatedUsage(reply, simulated, options.promptCache?.reportWrites === true || endpoint === 'messages'),
    number: index + 1,
    model,
    body,
  });
}

/** Anthropic caches only requests that mark a breakpoint; the other protocols cache every prefix. */
function simulateCache(
  state: ProviderState,
  request: {
    readonly endpoint: Endpoint;
    readonly recorded: RecordedRequest;
    readonly body: Record<string, unknown>;
    readonly model: string;
  },
): SimulatedUsage | undefined {
  const { cache, options } = state;
  const { endpoint, recorded, body, model } = request;
  if (cache === undefined) return undefined;
  const text = cacheText(recorded);
  if (endpoint === 'messages' && countBreakpoints(body) === 0) {
    const count = options.promptCache?.countTokens ?? countTextConservatively;
    return { inputTokens: count(text), cachedTokens: 0, writtenTokens: 0 };
  }
  const key = typeof body['prompt_cache_key'] === 'string' ? body['prompt_cache_key'] : `${endpoint}:${model}`;
  return cache.request({ key, text, at: state.clock() });
}

function refusalOf(state: ProviderState, endpoint: Endpoint, body: Record<string, unknown>): string | undefined {
  const { options, issuedSignatures, issuedCompactions } = state;
  if (endpoint === 'messages') return checkMessagesInput(body, issuedSignatures, issuedCompactions);
  if (endpoint === 'chat') {
    if (options.requireReasoningContent?.(body) === true) {
      const missing = checkDeepSeekReasoningContent(body['messages'], state.emittedReasoning);
      if (missing !== undefined) return missing;
    }
    return checkChatPairing(body['messages']);
  }
  return checkResponsesInput(body['input'], issuedCompactions);
}

/** Streams a turn reply, or a failing, cut, malformed or hanging stream, in the endpoint's protocol. */
async function stream(
  state: ProviderState,
  response: ServerResponse,
  answer: {
    readonly endpoint: StreamEndpoint;
    readonly reply: Exclude<LoopbackReply, HttpErrorReply | { type: 'compaction' }>;
    readonly number: number;
    readonly model: string;
    readonly body: Record<string, unknown>;
  },
): Promise<void> {
  const { options } = state;
  const { endpoint, reply, number, model, body } = answer;
  const events = (turnReply: TurnReply | undefined): SseEvent[] => {
    if (turnReply === undefined) return [];
    if (endpoint === 'responses') return responsesTurnEvents(turnReply, number, model);
    if (endpoint === 'messages') {
      if (deltasOf(turnReply.reasoning).length > 0) state.issuedSignatures.add(signatureOf(turnReply, number));
      return messagesTurnEvents(turnReply, number, model);
    }
    rememberReasoning(state, turnReply, number);
    const counted =
      options.countPromptTokens === undefined
        ? turnReply
        : withCountedInput(turnReply, options.countPromptTokens(body));
    return chatTurnEvents(counted, number, model, options.chatUsageStyle ?? 'openai');
  };
  switch (reply.type) {
    case 'turn':
      writeSseHeaders(response);
      await writeSse(response, events(reply), { kind: 'complete' });
      return;
    case 'stream-failed': {
      const prefix = events(reply.turn).slice(0, reply.afterEvents ?? 0);
      const all =
        endpoint === 'responses'
          ? responsesFailedEvents(prefix, reply.code, reply.message, number, model)
          : endpoint === 'messages'
            ? messagesFailedEvents(prefix, reply.code, reply.message)
            : [...prefix, chatErrorEvent(reply.code, reply.message)];
      writeSseHeaders(response);
      await writeSse(response, all, { kind: 'complete' });
      return;
    }
    case 'cut':
    case 'malformed':
    case 'hang': {
      if (reply.type === 'hang' && reply.sendHeaders === false) return;
      const all = events(reply.turn);
      const stop = reply.afterEvents ?? 0;
      const ending: StreamEnding = {
        kind: reply.type,
        afterEvents: stop === 'before-completion' ? completionIndex(endpoint, all) : stop,
      };
      writeSseHeaders(response);
      await writeSse(response, all, ending);
      return;
    }
  }
}

function rememberReasoning(state: ProviderState, reply: TurnReply, number: number): void {
  const reasoning = deltasOf(reply.reasoning).join('');
  if (reasoning.length === 0) return;
  for (const [index, call] of (reply.toolCalls ?? []).entries())
    state.emittedReasoning.set(call.callId ?? `call_${number}_${index}`, reasoning);
}

type Endpoint = 'responses' | 'compact' | 'chat' | 'messages';
type StreamEndpoint = Exclude<Endpoint, 'compact'>;

/** A turn that reports `inputTokens` as its input; a cached count above it is cut down to it. */
function withCountedInput(reply: TurnReply, inputTokens: number): TurnReply {
  const usage = { outputTokens: 0, ...reply.usage, inputTokens };
  return {
    ...reply,
    usage:
      usage.cachedInputTokens === undefined
        ? usage
        : { ...usage, cachedInputTokens: Math.min(usage.cachedInputTokens, inputTokens) },
  };
}

/** A reply whose turn reports the simulated cache's input counts; output counts stay as scripted. */
function withSimulatedUsage<R extends Exclude<LoopbackReply, HttpErrorReply | { type: 'compaction' }>>(
  reply: R,
  simulated: SimulatedUsage,
  reportWrites: boolean,
): R {
  const apply = (turnReply: TurnReply): TurnReply => ({
    ...turnReply,
    usage: {
      outputTokens: turnReply.usage?.outputTokens ?? 0,
      ...(turnReply.usage?.reasoningTokens === undefined ? {} : { reasoningTokens: turnReply.usage.reasoningTokens }),
      inputTokens: simulated.inputTokens,
      cachedInputTokens: simulated.cachedTokens,
      ...(reportWrites ? { cacheWriteTokens: simulated.writtenTokens } : {}),
    },
  });
  if (reply.type === 'turn') return apply(reply) as R;
  return reply.turn === undefined ? reply : ({ ...reply, turn: apply(reply.turn) } as R);
}

/** Index of the first event that tells the client the response is complete. */
function completionIndex(endpoint: StreamEndpoint, events: readonly SseEvent[]): number {
  if (endpoint === 'messages') return messagesCompletionIndex(events);
  const index = events.findIndex((event) => {
    if (endpoint === 'responses') return event.event === 'response.completed' || event.event === 'response.incomplete';
    const choices = event.data as { choices?: { finish_reason?: string | null }[] } | string;
    return typeof choices === 'object' && (choices.choices?.[0]?.finish_reason ?? null) !== null;
  });
  return index === -1 ? events.length : index;
}

function endpointOf(request: RecordedRequest): Endpoint | undefined {
  if (request.method !== 'POST') return undefined;
  if (request.path.endsWith('/responses/compact')) return 'compact';
  if (request.path.endsWith('/responses')) return 'responses';
  if (request.path.endsWith('/chat/completions')) return 'chat';
  if (request.path.endsWith('/messages')) return 'messages';
  return undefined;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function lowerCaseHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

function sendOpenAIError(response: ServerResponse, reply: HttpErrorReply): void {
  const message = reply.message ?? `loopback error ${reply.status}`;
  const error = {
    message,
    type: reply.errorType ?? (reply.status >= 500 ? 'server_error' : 'invalid_request_error'),
    param: null,
    code: reply.code ?? null,
  };
  sendJson(response, reply.status, { error }, reply.headers);
}
