import { describe, expect, it } from 'vitest';
import type { ForgeEvent } from '../events/events.js';
import type { Message } from '../messages.js';
import { emptyUsage } from '../model/adapter.js';
import { endRun } from './run-end.js';

const messages: Message[] = [
  { role: 'user', content: 'hi' },
  { role: 'assistant', content: [{ type: 'text', text: 'first' }] },
  { role: 'assistant', content: [{ type: 'text', text: 'last' }] },
];

describe('endRun', () => {
  it('emits run.completed with the cost and gives the result with the last assistant text', () => {
    const events: ForgeEvent[] = [];
    const result = endRun((event) => events.push(event), {
      runId: 'run_1',
      status: 'completed',
      messages,
      steps: 2,
      usage: emptyUsage,
      durationMs: 5,
      instructionsHash: 'h',
      cost: { cacheHitRatio: 0.5 },
    });
    expect(events).toEqual([
      { type: 'run.completed', status: 'completed', steps: 2, usage: emptyUsage, durationMs: 5, cacheHitRatio: 0.5 },
    ]);
    expect(result).toEqual({
      runId: 'run_1',
      status: 'completed',
      messages,
      text: 'last',
      steps: 2,
      usage: emptyUsage,
      cacheHitRatio: 0.5,
      instructionsHash: 'h',
    });
  });

  it('emits run.failed with its error, or a stated unknown failure when the engine has none', () => {
    const events: ForgeEvent[] = [];
    const error = { code: 'codex_turn_failed', message: 'boom', isRetryable: false };
    expect(
      endRun((event) => events.push(event), {
        runId: 'run_2',
        status: 'failed',
        messages: messages.slice(0, 1),
        steps: 0,
        usage: emptyUsage,
        durationMs: 1,
        instructionsHash: 'h',
        error,
      }),
    ).toMatchObject({ text: '', error });
    endRun((event) => events.push(event), {
      runId: 'run_3',
      status: 'failed',
      messages,
      steps: 0,
      usage: emptyUsage,
      durationMs: 1,
      instructionsHash: 'h',
    });
    expect(events.map((event) => (event.type === 'run.failed' ? event.error : undefined))).toEqual([
      error,
      { code: 'unexpected', message: 'unknown failure', isRetryable: false },
    ]);
  });
});
