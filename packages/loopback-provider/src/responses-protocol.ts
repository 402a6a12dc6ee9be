import { argumentsText, deltasOf, type CompactionReply, type LoopbackUsage, type TurnReply } from './replies.js';
import type { SseEvent } from './sse.js';

/*
 * The OpenAI Responses API as the loopback server speaks it: SSE events for `POST /v1/responses`,
 * the JSON answer of `POST /v1/responses/compact`, and the input checks the real service makes
 * on items a client sends back (pairing, compaction items it issued).
 */

type Item = Record<string, unknown>;

function usageObject(usage: LoopbackUsage | undefined): Item {
  const value = usage ?? { inputTokens: 0, outputTokens: 0 };
  return {
    input_tokens: value.inputTokens,
    input_tokens_details: {
      cached_tokens: value.cachedInputTokens ?? 0,
      cache_write_tokens: value.cacheWriteTokens,
    },
    output_tokens: value.outputTokens,
    output_tokens_details: { reasoning_tokens: value.reasoningTokens ?? 0 },
    total_tokens: value.inputTokens + value.outputTokens,
  };
}

/** The events of one streamed turn, ending with `response.completed` (or `response.incomplete`). */
export function responsesTurnEvents(reply: TurnReply, requestNumber: number, model: string): SseEvent[] {
  const responseId = `resp_${requestNumber}`;
  const base = { id: responseId, object: 'response', created_at: 1_700_000_000 + requestNumber, model };
  const events: SseEvent[] = [];
  let sequence = 0;
  const push = (type: string, fields: Item): void => {
    events.push({ event: type, data: { type, sequence_number: sequence++, ...fields } });
  };
  push('response.created', { response: { ...base, status: 'in_progress', output: [] } });
  push('response.in_progress', { response: { ...base, status: 'in_progress', output: [] } });

  const stream: ResponseStream = { push, output: [], requestNumber };
  pushReasoningItem(stream, reply);
  pushMessageItem(stream, reply);
  pushFunctionCallItems(stream, reply);

  const incomplete = reply.incompleteReason;
  push(incomplete === undefined ? 'response.completed' : 'response.incomplete', {
    response: {
      ...base,
      status: incomplete === undefined ? 'completed' : 'incomplete',
      incomplete_details: incomplete === undefined ? null : { reason: incomplete },
      output: stream.output,
      usage: usageObject(reply.usage),
    },
  });
  return events;
}

/** A turn's stream being written: its events in sequence, and the output items finished so far. */
interface ResponseStream {
  readonly push: (type: string, fields: Item) => void;
  readonly output: Item[];
  readonly requestNumber: number;
}

function pushReasoningItem({ push, output, requestNumber }: ResponseStream, reply: TurnReply): void {
  const reasoning = deltasOf(reply.reasoning);
  if (reasoning.length === 0 && reply.encryptedReasoning === undefined) return;
  const outputIndex = output.length;
  const id = `rs_${requestNumber}_${outputIndex}`;
  const encrypted = reply.encryptedReasoning === undefined ? {} : { encrypted_content: reply.encryptedReasoning };
  push('response.output_item.added', {
    output_index: outputIndex,
    item: { id, type: 'reasoning', summary: [], ...encrypted },
  });
  const text = reasoning.join('');
  if (reasoning.length > 0) {
    push('response.reasoning_summary_part.added', {
      item_id: id,
      output_index: outputIndex,
      summary_index: 0,
      part: { type: 'summary_text', text: '' },
    });
    for (const delta of reasoning) {
      push('response.reasoning_summary_text.delta', {
        item_id: id,
        output_index: outputIndex,
        summary_index: 0,
        delta,
      });
    }
    push('response.reasoning_summary_text.done', { item_id: id, output_index: outputIndex, summary_index: 0, text });
    push('response.reasoning_summary_part.done', {
      item_id: id,
      output_index: outputIndex,
      summary_index: 0,
      part: { type: 'summary_text', text },
    });
  }
  const item = {
    id,
    type: 'reasoning',
    summary: reasoning.length > 0 ? [{ type: 'summary_text', text }] : [],
    ...encrypted,
  };
  push('response.output_item.done', { output_index: outputIndex, item });
  output.push(item);
}

function pushMessageItem({ push, output, requestNumber }: ResponseStream, reply: TurnReply): void {
  const text = deltasOf(reply.text);
  if (text.length === 0) return;
  const outputIndex = output.length;
  const id = `msg_${requestNumber}_${outputIndex}`;
  push('response.output_item.added', {
    output_index: outputIndex,
    item: { id, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
  });
  push('response.content_part.added', {
    item_id: id,
    output_index: outputIndex,
    content_index: 0,
    part: { type: 'output_text', text: '', annotations: [] },
  });
  for (const delta of text) {
    push('response.output_text.delta', {
      item_id: id,
      output_index: outputIndex,
      content_index: 0,
      delta,
      logprobs: [],
    });
  }
  const full = text.join('');
  push('response.output_text.done', {
    item_id: id,
    output_index: outputIndex,
    content_index: 0,
    text: full,
    logprobs: [],
  });
  const part = { type: 'output_text', text: full, annotations: [] };
  push('response.content_part.done', { item_id: id, output_index: outputIndex, content_index: 0, part });
  const item = { id, type: 'message', status: 'completed', role: 'assistant', content: [part] };
  push('response.output_item.done', { output_index: outputIndex, item });
  output.push(item);
}

function pushFunctionCallItems({ push, output, requestNumber }: ResponseStream, reply: TurnReply): void {
  for (const [index, call] of (reply.toolCalls ?? []).entries()) {
    const outputIndex = output.length;
    const id = `fc_${requestNumber}_${outputIndex}`;
    const callId = call.callId ?? `call_${requestNumber}_${index}`;
    const args = argumentsText(call);
    push('response.output_item.added', {
      output_index: outputIndex,
      item: { id, type: 'function_call', status: 'in_progress', name: call.name, call_id: callId, arguments: '' },
    });
    const half = Math.ceil(args.length / 2);
    for (const delta of [args.slice(0, half), args.slice(half)].filter((part) => part.length > 0)) {
      push('response.function_call_arguments.delta', { item_id: id, output_index: outputIndex, delta });
    }
    push('response.function_call_arguments.done', { item_id: id, output_index: outputIndex, arguments: args });
    const item = { id, type: 'function_call', status: 'completed', name: call.name, call_id: callId, arguments: args };
    push('response.output_item.done', { output_index: outputIndex, item });
    output.push(item);
  }
}

/** `response.created` followed by `response.failed` carrying `code` and `message`. */
export function responsesFailedEvents(
  prefix: readonly SseEvent[],
  code: string,
  message: string,
  requestNumber: number,
  model: string,
): SseEvent[] {
  const withoutEnd = prefix.filter(
    (event) => event.event !== 'response.completed' && event.event !== 'response.incomplete',
  );
  const base = { id: `resp_${requestNumber}`, object: 'response', created_at: 1_700_000_000 + requestNumber, model };
  const head =
    withoutEnd.length > 0
      ? withoutEnd
      : [
          {
            event: 'response.created',
            data: {
              type: 'response.created',
              sequence_number: 0,
              response: { ...base, status: 'in_progress', output: [] },
            },
          },
        ];
  return [
    ...head,
    {
      event: 'response.failed',
      data: {
        type: 'response.failed',
        sequence_number: head.length,
        response: {
          ...base,
          status: 'failed',
          error: { code, message },
          incomplete_details: null,
          output: [],
          usage: null,
        },
      },
    },
  ];
}

/** The body of a `/v1/responses/compact` answer: retained user messages, then the compaction item. */
export function compactionBody(
  reply: CompactionReply,
  input: readonly Item[],
  requestNumber: number,
  model: string,
): Item {
  const retained = input
    .filter((item) => item['role'] === 'user' && (item['type'] === undefined || item['type'] === 'message'))
    .map((item, index) => ({
      id: typeof item['id'] === 'string' ? item['id'] : `msg_user_${requestNumber}_${index}`,
      type: 'message',
      status: 'completed',
      role: 'user',
      content: userContent(item['content']),
    }));
  return {
    id: `cmp_resp_${requestNumber}`,
    object: 'response.compaction',
    created_at: 1_700_000_000 + requestNumber,
    model,
    output: [
      ...retained,
      { id: reply.itemId ?? `cmp_${requestNumber}`, type: 'compaction', encrypted_content: reply.encryptedContent },
    ],
    usage: usageObject(reply.usage),
  };
}

function userContent(content: unknown): unknown {
  if (typeof content === 'string') return [{ type: 'input_text', text: content }];
  return content;
}

/**
 * The checks the Responses API makes on input items, returning the error message of the first
 * violation: a reasoning item without its following item, a tool output without its call, a
 * call without its output, or a compaction item this server never issued.
 */
export function checkResponsesInput(input: unknown, issuedCompactions: ReadonlySet<string>): string | undefined {
  if (!Array.isArray(input)) return undefined;
  const items = input as Item[];
  const calls = new Set<string>();
  const outputs = new Set<string>();
  for (const [index, item] of items.entries()) {
    if (item['type'] === 'reasoning') {
      const next = items[index + 1];
      const followed = next !== undefined && (next['type'] === 'function_call' || next['role'] === 'assistant');
      if (!followed)
        return `Item '${String(item['id'] ?? 'reasoning')}' of type 'reasoning' was provided without its required following item.`;
    }
    if (item['type'] === 'function_call') calls.add(String(item['call_id']));
    if (item['type'] === 'function_call_output') {
      const callId = String(item['call_id']);
      if (!calls.has(callId)) return `No tool call found for function call output with call_id ${callId}.`;
      outputs.add(callId);
    }
    if (item['type'] === 'compaction' && !issuedCompactions.has(String(item['encrypted_content']))) {
      return 'The encrypted content of a compaction item could not be verified.';
    }
  }
  for (const callId of calls) if (!outputs.has(callId)) return `No tool output found for function call ${callId}.`;
  return undefined;
}
