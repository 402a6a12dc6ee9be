import {
  argumentsText,
  deltasOf,
  type CompactionReply,
  type HttpErrorReply,
  type LoopbackUsage,
  type TurnReply,
} from './replies.js';
import type { SseEvent } from './sse.js';

/*
 * Anthropic's Messages API as the loopback server speaks it: the SSE events of `POST /v1/messages`
 * (message_start with the input usage, one content block per thinking, text and tool use, then
 * message_delta with the stop reason and output usage, and message_stop), its error bodies, and
 * the checks the real service makes on what a client sends back: every tool_use answered by a
 * tool_result in the next user message, thinking blocks with a signature it issued, and at most
 * four cache breakpoints.
 */

type Block = Record<string, unknown>;

/** Anthropic's error type for an HTTP status. */
function errorTypeOf(status: number): string {
  switch (status) {
    case 400:
      return 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 529:
      return 'overloaded_error';
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

/** The JSON body of an error answer: `{"type":"error","error":{"type":…,"message":…}}`. */
export function messagesErrorBody(reply: HttpErrorReply): Block {
  const message = reply.message ?? `loopback error ${reply.status}`;
  return { type: 'error', error: { type: reply.errorType ?? errorTypeOf(reply.status), message } };
}

/** Anthropic reports fresh input, cache writes and cache reads apart; core's `inputTokens` is their sum. */
function inputUsage(usage: LoopbackUsage): Block {
  const read = usage.cachedInputTokens ?? 0;
  const written = usage.cacheWriteTokens ?? 0;
  return {
    input_tokens: Math.max(0, usage.inputTokens - read - written),
    cache_creation_input_tokens: written,
    cache_read_input_tokens: read,
  };
}

function stopReason(reply: TurnReply): string {
  if (reply.incompleteReason === 'max_output_tokens') return 'max_tokens';
  if (reply.incompleteReason === 'content_filter') return 'refusal';
  return (reply.toolCalls ?? []).length > 0 ? 'tool_use' : 'end_turn';
}

/** The signature the server gives the thinking of request `requestNumber` (the reply's `encryptedReasoning` when it has one). */
export function signatureOf(reply: TurnReply, requestNumber: number): string {
  return reply.encryptedReasoning ?? `loopback-signature-${requestNumber}`;
}

/** The events of one streamed turn, ending with `message_stop`. */
export function messagesTurnEvents(reply: TurnReply, requestNumber: number, model: string): SseEvent[] {
  const usage = reply.usage ?? { inputTokens: 0, outputTokens: 0 };
  const events: SseEvent[] = [];
  const push = (type: string, fields: Block): void => void events.push({ event: type, data: { type, ...fields } });
  push('message_start', {
    message: {
      id: `msg_${requestNumber}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...inputUsage(usage), output_tokens: 1 },
    },
  });
  push('ping', {});
  let index = 0;
  const block = (start: Block, deltas: readonly Block[]): void => {
    push('content_block_start', { index, content_block: start });
    for (const delta of deltas) push('content_block_delta', { index, delta });
    push('content_block_stop', { index });
    index += 1;
  };
  const thinking = deltasOf(reply.reasoning);
  if (thinking.length > 0) {
    block({ type: 'thinking', thinking: '', signature: '' }, [
      ...thinking.map((text) => ({ type: 'thinking_delta', thinking: text })),
      { type: 'signature_delta', signature: signatureOf(reply, requestNumber) },
    ]);
  }
  const text = deltasOf(reply.text);
  if (text.length > 0)
    block(
      { type: 'text', text: '' },
      text.map((delta) => ({ type: 'text_delta', text: delta })),
    );
  for (const [callIndex, call] of (reply.toolCalls ?? []).entries()) {
    const args = argumentsText(call);
    const half = Math.ceil(args.length / 2);
    const pieces = [args.slice(0, half), args.slice(half)].filter((piece) => piece.length > 0);
    block(
      { type: 'tool_use', id: call.callId ?? `toolu_${requestNumber}_${callIndex}`, name: call.name, input: {} },
      pieces.map((partial) => ({ type: 'input_json_delta', partial_json: partial })),
    );
  }
  push('message_delta', {
    delta: { stop_reason: stopReason(reply), stop_sequence: null },
    usage: {
      output_tokens: usage.outputTokens,
      ...(usage.reasoningTokens === undefined
        ? {}
        : { output_tokens_details: { thinking_tokens: usage.reasoningTokens } }),
    },
  });
  push('message_stop', {});
  return events;
}

/** An `error` event in the middle of a stream, after `prefix`. */
export function messagesFailedEvents(prefix: readonly SseEvent[], code: string, message: string): SseEvent[] {
  const type = code.endsWith('_error') ? code : 'invalid_request_error';
  return [...prefix, { event: 'error', data: { type: 'error', error: { type, message } } }];
}

/** Index of `message_delta`: the event that tells the client the response is complete. */
export function messagesCompletionIndex(events: readonly SseEvent[]): number {
  const index = events.findIndex((event) => event.event === 'message_delta');
  return index === -1 ? events.length : index;
}

function contentBlocks(message: Block): Block[] {
  return Array.isArray(message['content']) ? (message['content'] as Block[]) : [];
}

/** The number of blocks (system, tools, message content) that carry a `cache_control`. */
export function countBreakpoints(body: Block): number {
  const blocks = [
    ...(Array.isArray(body['system']) ? (body['system'] as Block[]) : []),
    ...(Array.isArray(body['tools']) ? (body['tools'] as Block[]) : []),
    ...(Array.isArray(body['messages']) ? (body['messages'] as Block[]).flatMap(contentBlocks) : []),
  ];
  return blocks.filter((block) => block['cache_control'] !== undefined).length + (body['cache_control'] ? 1 : 0);
}

function checkToolPairing(messages: readonly Block[]): string | undefined {
  for (const [index, message] of messages.entries()) {
    const uses = contentBlocks(message)
      .filter((block) => block['type'] === 'tool_use')
      .map((block) => String(block['id']));
    const next = messages[index + 1];
    const results = new Set(
      (next === undefined ? [] : contentBlocks(next))
        .filter((block) => block['type'] === 'tool_result')
        .map((block) => String(block['tool_use_id'])),
    );
    const missing = uses.find((id) => !results.has(id));
    if (missing !== undefined)
      return `messages.${index + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
    const previous = index === 0 ? [] : contentBlocks(messages[index - 1] ?? {});
    const known = new Set(previous.filter((block) => block['type'] === 'tool_use').map((block) => String(block['id'])));
    for (const block of contentBlocks(message)) {
      if (block['type'] === 'tool_result' && !known.has(String(block['tool_use_id'])))
        return `messages.${index}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block['tool_use_id'])}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
    }
  }
  return undefined;
}

/** The JSON answer of a compaction request: one `compaction` block, stop reason `compaction`. */
export function messagesCompactionBody(reply: CompactionReply, requestNumber: number, model: string): Block {
  const usage = reply.usage ?? { inputTokens: 0, outputTokens: 0 };
  return {
    id: `msg_${requestNumber}`,
    type: 'message',
    role: 'assistant',
    model,
    content: [
      {
        type: 'compaction',
        content: reply.summary ?? 'Summary of the earlier conversation.',
        signature: reply.encryptedContent,
      },
    ],
    stop_reason: 'compaction',
    stop_sequence: null,
    usage: { ...inputUsage(usage), output_tokens: usage.outputTokens },
  };
}

/** Why the service would refuse this request body, or undefined when it accepts it. */
export function checkMessagesInput(
  body: Block,
  issuedSignatures: ReadonlySet<string>,
  issuedCompactions: ReadonlySet<string> = new Set(),
): string | undefined {
  const breakpoints = countBreakpoints(body);
  if (breakpoints > 4) return `A maximum of 4 blocks with cache_control may be provided. Found ${breakpoints}.`;
  const messages = Array.isArray(body['messages']) ? (body['messages'] as Block[]) : [];
  for (const [index, message] of messages.entries()) {
    for (const block of contentBlocks(message)) {
      if (block['type'] === 'thinking' && !issuedSignatures.has(String(block['signature'])))
        return `messages.${index}.content: Invalid \`signature\` in \`thinking\` block`;
      if (block['type'] === 'compaction' && !issuedCompactions.has(String(block['signature'])))
        return `messages.${index}.content: Invalid \`signature\` in \`compaction\` block`;
    }
  }
  return checkToolPairing(messages);
}
