import type { JsonValue, Message, ModelRequest, ToolResultOutput } from '@forge/core';

/*
 * The policy model reads a request only as text, the way a provider would receive it: the
 * instructions, the checkpoint view, each message of the history, the current request and the
 * continuation, in that order. Host-only data (tool-result metadata) is not part of it.
 */

/** Where in the request a piece of text sits. */
export type SegmentPlace = 'instructions' | 'checkpoint' | 'history' | 'request' | 'continuation';

/** What a piece of text is. */
export type SegmentKind = 'instructions' | 'checkpoint' | 'user' | 'assistant-text' | 'tool-call' | 'tool-result';

export interface Segment {
  readonly kind: SegmentKind;
  readonly place: SegmentPlace;
  readonly text: string;
  /** Checkpoint view section (`FACTS_VALID`, `CONSTRAINTS`, ...), for checkpoint segments. */
  readonly section?: string;
  readonly toolName?: string;
  readonly toolCallId?: string;
  /** The call's input, for tool calls. */
  readonly input?: JsonValue;
  /** For a tool call: its result is visible and is not an error. For a tool result: it is an error. */
  readonly failed?: boolean;
  /** For a tool result: the input of the call it answers, when that call is visible. */
  readonly callInput?: JsonValue;
}

/** A request as the policy sees it: ordered text segments plus the advertised tool names. */
export interface RequestView {
  readonly segments: readonly Segment[];
  readonly toolNames: ReadonlySet<string>;
  readonly currentRequest: string;
}

const SECTION_HEADER = /^\[([A-Z_]+)(?: v\d+)?\]$/;

/** Splits checkpoint text into one segment per line, each labelled with its section. */
export function checkpointSegments(text: string, place: SegmentPlace = 'checkpoint'): Segment[] {
  const segments: Segment[] = [];
  let section = 'HEADER';
  for (const line of text.split('\n')) {
    const header = SECTION_HEADER.exec(line.trim());
    if (header?.[1] !== undefined) {
      section = header[1] === 'SESSION_CHECKPOINT' ? 'HEADER' : header[1];
      continue;
    }
    if (line.trim().length > 0) segments.push({ kind: 'checkpoint', place, text: line, section });
  }
  return segments;
}

export function outputText(output: ToolResultOutput): string {
  return output.type === 'json' ? JSON.stringify(output.value) : output.value;
}

function messageSegments(
  message: Message,
  place: SegmentPlace,
  calls: ReadonlyMap<string, JsonValue>,
  failedCalls: ReadonlySet<string>,
): Segment[] {
  if (message.role === 'user') return [{ kind: 'user', place, text: message.content }];
  if (message.role === 'tool') {
    return message.content.map((part) => ({
      kind: 'tool-result' as const,
      place,
      text: outputText(part.output),
      toolName: part.toolName,
      toolCallId: part.toolCallId,
      failed: part.output.type === 'error-text',
      ...(calls.has(part.toolCallId) ? { callInput: calls.get(part.toolCallId) as JsonValue } : {}),
    }));
  }
  const segments: Segment[] = [];
  for (const part of message.content) {
    if (part.type === 'text') segments.push({ kind: 'assistant-text', place, text: part.text });
    else if (part.type === 'tool-call') {
      segments.push({
        kind: 'tool-call',
        place,
        text: JSON.stringify(part.input),
        toolName: part.toolName,
        toolCallId: part.toolCallId,
        input: part.input,
        failed: failedCalls.has(part.toolCallId),
      });
    }
  }
  return segments;
}

/** Renders a request into ordered segments; tool results are paired with the visible call they answer. */
export function viewRequest(request: ModelRequest, extraCheckpointText?: string): RequestView {
  const all = [...request.history, request.currentRequest, ...request.continuation];
  const calls = new Map<string, JsonValue>();
  const answered = new Map<string, boolean>();
  for (const message of all) {
    if (message.role === 'assistant')
      for (const part of message.content) if (part.type === 'tool-call') calls.set(part.toolCallId, part.input);
    if (message.role === 'tool')
      for (const part of message.content) answered.set(part.toolCallId, part.output.type === 'error-text');
  }
  // A call counts as failed unless its result is visible and is not an error.
  const failedCalls = new Set([...calls.keys()].filter((id) => answered.get(id) !== false));
  const segments: Segment[] = [];
  if (request.instructions.length > 0)
    segments.push({ kind: 'instructions', place: 'instructions', text: request.instructions });
  if (extraCheckpointText !== undefined) segments.push(...checkpointSegments(extraCheckpointText));
  if (request.checkpoint !== undefined) segments.push(...checkpointSegments(request.checkpoint));
  for (const message of request.history) segments.push(...messageSegments(message, 'history', calls, failedCalls));
  segments.push({ kind: 'user', place: 'request', text: request.currentRequest.content });
  for (const message of request.continuation)
    segments.push(...messageSegments(message, 'continuation', calls, failedCalls));
  return {
    segments,
    toolNames: new Set(request.tools.map((tool) => tool.name)),
    currentRequest: request.currentRequest.content,
  };
}
