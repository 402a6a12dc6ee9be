import type { AssistantMessage, JsonObject, Message, ToolMessage, ToolResultOutput } from '@forge/core';
import { codexToolNames } from '../app-server/approvals.js';
import type { CodexThreadItem } from '../app-server/protocol.js';

type AssistantPart = AssistantMessage['content'][number];

export interface ToolOutcomeReport {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly outcome: 'ok' | 'error' | 'denied' | 'cancelled';
}

/**
 * Turns completed Codex items into Forge transcript messages: agent text and reasoning become
 * assistant parts; each command execution and file change becomes a tool call immediately
 * followed by its result, so every call is paired.
 */
export class TurnTranscript {
  private readonly messages: Message[] = [];
  private parts: AssistantPart[] = [];

  /** Adds one completed item; returns the tool outcome when the item was a tool action. */
  add(item: CodexThreadItem): ToolOutcomeReport | undefined {
    switch (item.type) {
      case 'agentMessage':
        if (item.text.length > 0) this.parts.push({ type: 'text', text: item.text });
        return undefined;
      case 'reasoning': {
        const text = [...item.summary, ...item.content].join('\n');
        if (text.length > 0) this.parts.push({ type: 'reasoning', text });
        return undefined;
      }
      case 'commandExecution': {
        const input: JsonObject = { command: item.command, cwd: item.cwd };
        const metadata: JsonObject = {
          engine: 'codex',
          status: item.status,
          exitCode: item.exitCode,
          durationMs: item.durationMs,
        };
        const output = item.aggregatedOutput ?? '';
        const result: ToolResultOutput =
          item.status === 'declined'
            ? { type: 'error-text', value: 'Declined by Forge approval policy; the command did not run.' }
            : item.status === 'completed' && (item.exitCode ?? 0) === 0
              ? { type: 'text', value: output }
              : { type: 'error-text', value: `Exit code ${String(item.exitCode)}.\n${output}` };
        this.pair(item.id, codexToolNames.command, input, result, metadata);
        return { toolCallId: item.id, toolName: codexToolNames.command, outcome: outcomeOf(item.status) };
      }
      case 'fileChange': {
        const changes = item.changes.map((change) => ({ path: change.path, kind: change.kind.type }));
        const listing = changes.map((change) => `${change.kind} ${change.path}`).join('\n');
        const result: ToolResultOutput =
          item.status === 'completed'
            ? { type: 'text', value: `Applied:\n${listing}` }
            : item.status === 'declined'
              ? { type: 'error-text', value: 'Declined by Forge approval policy; the patch was not applied.' }
              : { type: 'error-text', value: `The patch was not applied (${item.status}).\n${listing}` };
        this.pair(item.id, codexToolNames.fileChange, { changes }, result, { engine: 'codex', status: item.status });
        return { toolCallId: item.id, toolName: codexToolNames.fileChange, outcome: outcomeOf(item.status) };
      }
      default:
        return undefined;
    }
  }

  /**
   * Adds an item that started but never completed, because the turn was cancelled or the server
   * died: the call is recorded with a result saying it may still be running (a command) or may
   * have been applied in part (a patch), so the transcript says what ran.
   */
  addUnfinished(item: CodexThreadItem, ended: 'cancelled' | 'failed'): ToolOutcomeReport | undefined {
    const why = ended === 'cancelled' ? 'The turn was cancelled' : 'The turn failed';
    if (item.type === 'commandExecution') {
      const output = item.aggregatedOutput ?? '';
      this.pair(
        item.id,
        codexToolNames.command,
        { command: item.command, cwd: item.cwd },
        {
          type: 'error-text',
          value: `${why} before this command finished; it may still be running.${output.length > 0 ? `\nOutput so far:\n${output}` : ''}`,
        },
        { engine: 'codex', status: 'interrupted' },
      );
      return { toolCallId: item.id, toolName: codexToolNames.command, outcome: 'cancelled' };
    }
    if (item.type === 'fileChange') {
      const changes = item.changes.map((change) => ({ path: change.path, kind: change.kind.type }));
      this.pair(
        item.id,
        codexToolNames.fileChange,
        { changes },
        {
          type: 'error-text',
          value: `${why} before this patch was reported applied; it may have been applied in part.`,
        },
        { engine: 'codex', status: 'interrupted' },
      );
      return { toolCallId: item.id, toolName: codexToolNames.fileChange, outcome: 'cancelled' };
    }
    return undefined;
  }

  /** The messages so far, with any pending assistant parts closed into a message. */
  finish(): Message[] {
    this.flush();
    return [...this.messages];
  }

  private pair(
    toolCallId: string,
    toolName: string,
    input: JsonObject,
    output: ToolResultOutput,
    metadata: JsonObject,
  ): void {
    this.parts.push({ type: 'tool-call', toolCallId, toolName, input });
    this.flush();
    const result: ToolMessage = {
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId, toolName, output, metadata }],
    };
    this.messages.push(result);
  }

  private flush(): void {
    if (this.parts.length === 0) return;
    this.messages.push({ role: 'assistant', content: this.parts });
    this.parts = [];
  }
}

function outcomeOf(status: 'inProgress' | 'completed' | 'failed' | 'declined'): ToolOutcomeReport['outcome'] {
  if (status === 'completed') return 'ok';
  if (status === 'declined') return 'denied';
  return 'error';
}
