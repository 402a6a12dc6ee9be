import { describe, expect, it } from 'vitest';
import type { EventEnvelope } from '../events/events.js';
import { createRedactor } from '../redaction/redactor.js';
import { toObserverEvent } from './observer-event.js';

const openaiKey = `sk-${'Q7w8E9r0'.repeat(6)}`;
const redactor = createRedactor({ secrets: ['configured-secret-value'] });

function envelope(event: unknown): EventEnvelope {
  return {
    schemaVersion: 1,
    runId: 'run_1',
    sequence: 0,
    timestamp: '2026-01-01T00:00:00.000Z',
    event,
  } as EventEnvelope;
}

describe('toObserverEvent', () => {
  it('redacts every string, wherever it sits, and keeps numbers, undefined fields and the rest', () => {
    const original = envelope({
      type: 'tool.call.started',
      step: 1,
      toolCallId: 'call_1',
      toolName: 'run_command',
      summary: `curl -H "Authorization: Bearer ${openaiKey}" --data configured-secret-value`,
    });
    const seen = toObserverEvent(original, redactor);
    expect(seen.event).toEqual({
      type: 'tool.call.started',
      step: 1,
      toolCallId: 'call_1',
      toolName: 'run_command',
      summary: 'curl -H "Authorization: Bearer [REDACTED:openai-key]" --data [REDACTED:secret]',
    });
    const completed = toObserverEvent(
      envelope({
        type: 'run.completed',
        status: 'completed',
        steps: 1,
        durationMs: 5,
        usage: {
          inputTokens: 10,
          cacheReadTokens: undefined,
          cacheWriteTokens: undefined,
          outputTokens: 2,
          reasoningTokens: undefined,
        },
      }),
      redactor,
    );
    expect(completed.event).toEqual({
      type: 'run.completed',
      status: 'completed',
      steps: 1,
      durationMs: 5,
      usage: {
        inputTokens: 10,
        cacheReadTokens: undefined,
        cacheWriteTokens: undefined,
        outputTokens: 2,
        reasoningTokens: undefined,
      },
    });
  });

  it('reduces opaque provider state to provider, model, hash and size', () => {
    const state = {
      provider: 'openai',
      modelId: 'gpt-5.1',
      itemHash: 'a'.repeat(64),
      bytes: 1234,
      items: [{ type: 'compaction', encrypted_content: 'user said: my password is hunter2' }],
      sourceHash: 'b'.repeat(64),
      sourceMessages: 4,
      previousItemHash: null,
    };
    const seen = toObserverEvent(
      envelope({ type: 'context.compaction.completed', nativeState: state, nested: [{ state }] }),
      redactor,
    );
    const summary = { provider: 'openai', modelId: 'gpt-5.1', itemHash: 'a'.repeat(64), bytes: 1234 };
    expect(seen.event).toEqual({
      type: 'context.compaction.completed',
      nativeState: summary,
      nested: [{ state: summary }],
    });
    expect(JSON.stringify(seen)).not.toContain('hunter2');
  });

  it('returns a deeply frozen copy and leaves the original untouched and unfrozen', () => {
    const usage = { inputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 1, reasoningTokens: 0 };
    const original = envelope({ type: 'model.step.completed', step: 1, finishReason: 'stop', usage, toolCalls: 0 });
    const seen = toObserverEvent(original, redactor);
    expect(Object.isFrozen(seen)).toBe(true);
    expect(Object.isFrozen(seen.event)).toBe(true);
    expect(() => {
      (seen.event as { usage: { inputTokens: number } }).usage.inputTokens = 999;
    }).toThrow(TypeError);
    expect(usage.inputTokens).toBe(1);
    expect(Object.isFrozen(original) || Object.isFrozen(usage)).toBe(false);
  });
});
