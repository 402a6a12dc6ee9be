import type { AssistantMessage, JsonObject, JsonValue, Message, ToolResultOutput, ToolResultPart } from '@forge/core';

type AssistantPart = AssistantMessage['content'][number];
type Source = 'response_item' | 'event_msg';

interface LastText {
  readonly text: string;
  readonly source: Source;
  matched: boolean;
}

/**
 * Assembles Forge messages from rollout items in file order and hands each finished message to
 * `emit`. Consecutive assistant items become one assistant message; tool results follow the call
 * they answer. Older files record each user and agent message twice (a response item and an
 * event); the copy from the other source is recognised and dropped. Every tool call ends up
 * paired: a call with no recorded output gets an error result saying so.
 */
export class TranscriptBuilder {
  private readonly emit: (message: Message) => void;
  private parts: AssistantPart[] = [];
  private results: ToolResultPart[] = [];
  private readonly pendingCalls = new Map<string, string>();
  private lastUser: LastText | undefined;
  private lastAssistant: LastText | undefined;
  messageCount = 0;
  toolCallCount = 0;
  orphanOutputs = 0;

  constructor(emit: (message: Message) => void) {
    this.emit = emit;
  }

  /** Adds a user message; returns false when it was the other source's copy of the last one. */
  user(text: string, source: Source): boolean {
    if (isEcho(this.lastUser, text, source)) return false;
    this.closeTurn();
    this.push({ role: 'user', content: text });
    this.lastUser = { text: text.trim(), source, matched: false };
    this.lastAssistant = undefined;
    return true;
  }

  assistantText(text: string, source: Source): void {
    if (text.length === 0 || isEcho(this.lastAssistant, text, source)) return;
    this.flushResults();
    this.parts.push({ type: 'text', text });
    this.lastAssistant = { text: text.trim(), source, matched: false };
  }

  reasoning(text: string): void {
    if (text.length === 0) return;
    this.flushResults();
    this.parts.push({ type: 'reasoning', text });
  }

  toolCall(callId: string, toolName: string, input: JsonValue): void {
    this.flushResults();
    if (this.pendingCalls.has(callId)) return;
    this.parts.push({ type: 'tool-call', toolCallId: callId, toolName, input });
    this.pendingCalls.set(callId, toolName);
    this.toolCallCount += 1;
    this.lastAssistant = undefined;
  }

  /** Adds a tool result; returns false (and counts it) when no open call has this id. */
  toolResult(callId: string, output: ToolResultOutput, metadata: JsonObject): boolean {
    const toolName = this.pendingCalls.get(callId);
    if (toolName === undefined) {
      this.orphanOutputs += 1;
      return false;
    }
    this.pendingCalls.delete(callId);
    this.flushParts();
    this.results.push({ type: 'tool-result', toolCallId: callId, toolName, output, metadata });
    this.lastAssistant = undefined;
    return true;
  }

  /** True while `callId` has been called and not answered. */
  isOpen(callId: string): boolean {
    return this.pendingCalls.has(callId);
  }

  /** Emits what is buffered when no call is waiting for its output, so a boundary falls after it. */
  settle(): void {
    if (this.pendingCalls.size === 0) this.flushResults();
    if (this.pendingCalls.size === 0) this.flushParts();
  }

  /** Closes the current turn: unanswered calls get an explicit "no result" answer. */
  closeTurn(): void {
    this.flushParts();
    for (const [callId, toolName] of this.pendingCalls) {
      this.results.push({
        type: 'tool-result',
        toolCallId: callId,
        toolName,
        output: {
          type: 'error-text',
          value: 'No result was recorded for this call in the Codex rollout (interrupted or cut off).',
        },
        metadata: { importedFrom: 'codex-rollout', synthesized: true },
      });
    }
    this.pendingCalls.clear();
    this.flushResults();
  }

  private flushParts(): void {
    if (this.parts.length === 0) return;
    this.push({ role: 'assistant', content: this.parts });
    this.parts = [];
  }

  private flushResults(): void {
    if (this.results.length === 0) return;
    this.flushParts();
    this.push({ role: 'tool', content: this.results });
    this.results = [];
  }

  private push(message: Message): void {
    this.messageCount += 1;
    this.emit(message);
  }
}

function isEcho(last: LastText | undefined, text: string, source: Source): boolean {
  if (last === undefined || last.matched || last.source === source || last.text !== text.trim()) return false;
  last.matched = true;
  return true;
}
