import { argumentsText, deltasOf, type LoopbackUsage, type TurnReply } from './replies.js';
import type { SseEvent } from './sse.js';

/*
 * Chat Completions SSE as DeepSeek and OpenAI-compatible servers (Ollama, vLLM, llama.cpp,
 * LM Studio) stream it: `reasoning_content` deltas, content deltas, tool call deltas, a final
 * chunk with the finish reason and usage, then `data: [DONE]`.
 */

/** Which server's usage fields to report. */
export type ChatUsageStyle = 'deepseek' | 'openai';

type Chunk = Record<string, unknown>;

function usageObject(usage: LoopbackUsage | undefined, style: ChatUsageStyle): Chunk {
  const value = usage ?? { inputTokens: 0, outputTokens: 0 };
  const cached = value.cachedInputTokens ?? 0;
  return {
    prompt_tokens: value.inputTokens,
    completion_tokens: value.outputTokens,
    total_tokens: value.inputTokens + value.outputTokens,
    ...(style === 'deepseek'
      ? { prompt_cache_hit_tokens: cached, prompt_cache_miss_tokens: value.inputTokens - cached }
      : { prompt_tokens_details: { cached_tokens: cached } }),
    completion_tokens_details: { reasoning_tokens: value.reasoningTokens ?? 0 },
  };
}

/** The chunks of one streamed turn, ending with usage and `[DONE]`. */
export function chatTurnEvents(
  reply: TurnReply,
  requestNumber: number,
  model: string,
  style: ChatUsageStyle,
): SseEvent[] {
  const base = {
    id: `chatcmpl_${requestNumber}`,
    object: 'chat.completion.chunk',
    created: 1_700_000_000 + requestNumber,
    model,
  };
  const chunk = (delta: Chunk, finishReason: string | null = null): SseEvent => ({
    data: { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] },
  });
  const events: SseEvent[] = [chunk({ role: 'assistant', content: '' })];
  for (const delta of deltasOf(reply.reasoning)) events.push(chunk({ reasoning_content: delta }));
  for (const delta of deltasOf(reply.text)) events.push(chunk({ content: delta }));
  const calls = reply.toolCalls ?? [];
  for (const [index, call] of calls.entries()) {
    const args = argumentsText(call);
    const id = call.callId ?? `call_${requestNumber}_${index}`;
    events.push(chunk({ tool_calls: [{ index, id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    const half = Math.ceil(args.length / 2);
    for (const part of [args.slice(0, half), args.slice(half)].filter((piece) => piece.length > 0)) {
      events.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
    }
  }
  const finishReason =
    reply.incompleteReason === 'max_output_tokens'
      ? 'length'
      : reply.incompleteReason === 'content_filter'
        ? 'content_filter'
        : calls.length > 0
          ? 'tool_calls'
          : 'stop';
  events.push(chunk({}, finishReason));
  events.push({ data: { ...base, choices: [], usage: usageObject(reply.usage, style) } });
  events.push({ data: '[DONE]' });
  return events;
}

/** An error chunk in the middle of a Chat Completions stream. */
export function chatErrorEvent(code: string, message: string): SseEvent {
  return { data: { error: { message, type: 'invalid_request_error', code } } };
}

/**
 * DeepSeek's thinking-mode rule: every assistant message with tool calls must carry its
 * `reasoning_content`, and when this server produced that reasoning, unchanged — otherwise the
 * request is refused with a 400. `emitted` maps tool call ids to the reasoning streamed with them.
 */
export function checkDeepSeekReasoningContent(
  messages: unknown,
  emitted: ReadonlyMap<string, string>,
): string | undefined {
  if (!Array.isArray(messages)) return undefined;
  for (const [index, message] of (messages as Chunk[]).entries()) {
    if (message['role'] !== 'assistant') continue;
    const calls = message['tool_calls'];
    if (!Array.isArray(calls) || calls.length === 0) continue;
    const reasoning = message['reasoning_content'];
    if (typeof reasoning !== 'string') {
      return `Missing reasoning_content field in the assistant message at message index ${index}. In thinking mode, reasoning_content must be passed back to the API.`;
    }
    const expected = (calls as Chunk[])
      .map((call) => emitted.get(String(call['id'])))
      .find((text) => text !== undefined);
    if (expected !== undefined && reasoning !== expected) {
      return `The reasoning_content in the thinking mode must be passed back to the API (assistant message at index ${index} differs from the reasoning produced with its tool calls).`;
    }
  }
  return undefined;
}

/** Chat Completions pairing: every tool message answers an earlier call, every call is answered. */
export function checkChatPairing(messages: unknown): string | undefined {
  if (!Array.isArray(messages)) return undefined;
  const calls = new Set<string>();
  const answered = new Set<string>();
  for (const message of messages as Chunk[]) {
    const toolCalls = message['tool_calls'];
    if (message['role'] === 'assistant' && Array.isArray(toolCalls)) {
      for (const call of toolCalls as Chunk[]) calls.add(String(call['id']));
    }
    if (message['role'] === 'tool') {
      const id = String(message['tool_call_id']);
      if (!calls.has(id))
        return `Messages with role 'tool' must be a response to a preceding message with 'tool_calls' (tool_call_id ${id}).`;
      answered.add(id);
    }
  }
  for (const id of calls) {
    if (!answered.has(id))
      return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id' (missing ${id}).`;
  }
  return undefined;
}
