import { findUnpairedToolCalls, type ModelAdapter } from '@forge/core';
import { describe, expect, it } from 'vitest';
import { turn } from '../replies.js';
import type { LoopbackProvider } from '../server.js';
import { conformanceTuning, noteTool, occurrencesOfRequest, runTurn } from './fixtures.js';

/**
 * The documented fault behaviour, for every adapter: failures before any output are retried a
 * bounded number of times (rate limits after the wait the provider asked for); after output,
 * never. No fault duplicates the user's input or leaves a tool call without its result.
 */
export function runFaultConformance(
  context: () => { readonly server: LoopbackProvider; readonly model: ModelAdapter },
): void {
  describe('faults', () => {
    it('retries a 429 after the wait it asked for, resending the identical request', async () => {
      const { server, model } = context();
      server.enqueue(
        {
          type: 'http-error',
          status: 429,
          code: 'rate_limit_exceeded',
          message: 'Slow down.',
          headers: { 'retry-after-ms': '150' },
        },
        turn({ text: 'Done.' }),
      );
      const started = Date.now();
      const { result } = await runTurn(model);
      expect(result.status).toBe('completed');
      expect(Date.now() - started).toBeGreaterThanOrEqual(140);
      expect(server.requests).toHaveLength(2);
      expect(server.requests[1]?.rawBody).toBe(server.requests[0]?.rawBody);
      expect(occurrencesOfRequest(server.requests[1]?.rawBody ?? '')).toBe(1);
    });

    it('gives up on 429 after the retry budget with a clear rate-limit error', async () => {
      const { server, model } = context();
      const limited = {
        type: 'http-error' as const,
        status: 429,
        message: 'Slow down.',
        headers: { 'retry-after': '0' },
      };
      server.enqueue(limited, limited, limited);
      const { result } = await runTurn(model);
      expect(result.status).toBe('failed');
      expect(result.error).toMatchObject({ code: 'rate_limited', isRetryable: true });
      expect(result.error?.message).toMatch(/rate limiting/);
      expect(server.requests).toHaveLength(conformanceTuning.retry.maxRetries + 1);
    });

    it('does not wait when the provider asks for longer than the policy allows', async () => {
      const { server, model } = context();
      server.enqueue({ type: 'http-error', status: 429, message: 'Slow down.', headers: { 'retry-after': '3600' } });
      const { result } = await runTurn(model);
      expect(result.error?.code).toBe('rate_limited');
      expect(result.error?.message).toMatch(/wait 3600 s/);
      expect(server.requests).toHaveLength(1);
    });

    it('retries a 500 that came before any output', async () => {
      const { server, model } = context();
      server.enqueue({ type: 'http-error', status: 500, message: 'Internal error.' }, turn({ text: 'Recovered.' }));
      const { result } = await runTurn(model);
      expect(result.text).toBe('Recovered.');
      expect(server.requests).toHaveLength(2);
    });

    it('retries a stream cut before any output', async () => {
      const { server, model } = context();
      server.enqueue({ type: 'cut', turn: turn({ text: 'lost' }), afterEvents: 1 }, turn({ text: 'Second try.' }));
      const { result } = await runTurn(model);
      expect(result.text).toBe('Second try.');
      expect(server.requests).toHaveLength(2);
    });

    it.each([
      { fault: 'a stream cut', type: 'cut', text: ['Let me ', 'check'] },
      { fault: 'malformed JSON', type: 'malformed', text: ['Half ', 'way'] },
    ] as const)(
      'ends the step on $fault after output: partial text kept, no tool run, no retry',
      async ({ type, text }) => {
        const { server, model } = context();
        const tool = noteTool();
        server.enqueue({
          type,
          turn: turn({ text, toolCalls: [{ name: 'read_note', arguments: { name: 'alpha' } }] }),
          afterEvents: 'before-completion',
        });
        const { result } = await runTurn(model, { tool });
        expect(result.status).toBe('failed');
        expect(result.error?.code).toBe('transport');
        // What streamed is kept, marked as cut so a resumed session does not take it for a whole answer.
        expect(result.text?.startsWith(text.join(''))).toBe(true);
        expect(result.text?.slice(text.join('').length)).toContain('[Forge: this answer was cut off here');
        expect(tool.calls).toEqual([]);
        expect(findUnpairedToolCalls(result.messages)).toEqual([]);
        expect(server.requests).toHaveLength(1);
      },
    );

    it('times out a provider that stops sending, without retrying', async () => {
      const { server, model } = context();
      server.enqueue({ type: 'hang' });
      const started = Date.now();
      const { result } = await runTurn(model);
      expect(result.status).toBe('failed');
      expect(result.error).toMatchObject({ code: 'transport', isRetryable: true });
      expect(result.error?.message).toContain(`sent nothing for ${conformanceTuning.idleTimeoutMs} ms`);
      expect(Date.now() - started).toBeGreaterThanOrEqual(conformanceTuning.idleTimeoutMs - 20);
      expect(server.requests).toHaveLength(1);
    });
  });
}
