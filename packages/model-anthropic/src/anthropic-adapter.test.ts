import { ContextOverflowError, ForgeError, RateLimitError, type Message } from '@forge/core';
import { startLoopbackProvider, turn, type LoopbackProvider } from '@forge/loopback-provider';
import { bareRequest, conformanceTuning, drain, runTurn } from '@forge/loopback-provider/conformance';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { anthropicModelFor } from './test-model.test-helpers.js';

type Body = { system?: Record<string, unknown>[]; messages: { content: Record<string, unknown>[] }[] };

describe('Anthropic adapter', () => {
  let server: LoopbackProvider;
  beforeEach(async () => {
    server = await startLoopbackProvider();
  });
  afterEach(async () => {
    await server.close();
  });

  it('maps fresh input, cache writes and cache reads as Anthropic reports them apart', async () => {
    server.enqueue(
      turn({
        text: 'ok',
        usage: { inputTokens: 10_000, cachedInputTokens: 6000, cacheWriteTokens: 3000, outputTokens: 200 },
      }),
    );
    const { parts } = await drain(anthropicModelFor(server, conformanceTuning).doStream(bareRequest(), {}));
    expect(parts.at(-1)).toMatchObject({
      type: 'finish',
      finishReason: 'stop',
      usage: { inputTokens: 10_000, cacheReadTokens: 6000, cacheWriteTokens: 3000, outputTokens: 200 },
    });
  });

  it('sends the key as x-api-key with an anthropic-version, never as a bearer token', async () => {
    server.enqueue(turn({ text: 'ok' }));
    await drain(anthropicModelFor(server, conformanceTuning).doStream(bareRequest(), {}));
    const headers = server.requests[0]?.headers ?? {};
    expect(headers['x-api-key']).toBe('test-key');
    expect(headers['anthropic-version']).toBe('2023-06-01');
    expect(headers['authorization']).toBeUndefined();
    expect(server.requests[0]?.path).toBe('/v1/messages');
  });

  it('marks the instructions and the newest message with the configured lifetime', async () => {
    server.enqueue(turn({ text: 'ok' }));
    await drain(anthropicModelFor(server, conformanceTuning, { cacheLifetime: '1h' }).doStream(bareRequest(), {}));
    const body = server.requests[0]?.body as Body;
    expect(body.system?.[0]?.['cache_control']).toEqual({ type: 'ephemeral', ttl: '1h' });
    expect(body.messages.at(-1)?.content.at(-1)?.['cache_control']).toEqual({ type: 'ephemeral', ttl: '1h' });
  });

  it("reads Anthropic's overflow message the right way round: requested size first, then the limit", async () => {
    server.enqueue({ type: 'http-error', status: 400, message: 'prompt is too long: 210000 tokens > 200000 maximum' });
    const { error } = await drain(anthropicModelFor(server, conformanceTuning).doStream(bareRequest(), {}));
    expect(ContextOverflowError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ limitTokens: 200_000, requestedTokens: 210_000 });
    expect(server.requests).toHaveLength(1);
  });

  it('retries an overloaded 529 that came before any output', async () => {
    server.enqueue({ type: 'http-error', status: 529, message: 'Overloaded' }, turn({ text: 'Recovered.' }));
    const { result } = await runTurn(anthropicModelFor(server, conformanceTuning));
    expect(result.text).toBe('Recovered.');
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.rawBody).toBe(server.requests[0]?.rawBody);
  });

  it('reports an overload that outlasts the retries as a retryable server error naming Anthropic', async () => {
    const overloaded = { type: 'http-error' as const, status: 529, message: 'Overloaded' };
    server.enqueue(overloaded, overloaded, overloaded);
    const { error } = await drain(anthropicModelFor(server, conformanceTuning).doStream(bareRequest(), {}));
    expect(error).toMatchObject({ code: 'transport', isRetryable: true, status: 529 });
    expect(String((error as Error).message)).toMatch(
      /Anthropic at http:\/\/127\.0\.0\.1:\d+\/v1 failed with a server error \(HTTP 529: Overloaded\)/,
    );
  });

  it('waits the retry-after a 429 asks for, from a rate_limit_error body', async () => {
    server.enqueue(
      {
        type: 'http-error',
        status: 429,
        message: 'Number of request tokens has exceeded your per-minute rate limit',
        headers: { 'retry-after': '0.1' },
      },
      turn({ text: 'Done.' }),
    );
    const started = Date.now();
    const { result } = await runTurn(anthropicModelFor(server, conformanceTuning));
    expect(result.status).toBe('completed');
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    server.enqueue({ type: 'http-error', status: 429, message: 'Slow down.', headers: { 'retry-after': '7' } });
    const limited = await drain(
      anthropicModelFor(server, {
        ...conformanceTuning,
        retry: { ...conformanceTuning.retry, maxRetries: 0 },
      }).doStream(bareRequest(), {}),
    );
    expect(RateLimitError.isInstance(limited.error) && limited.error.retryAfterMs).toBe(7000);
  });

  it('sends thinking back with its signature to the model that produced it, and never to another', async () => {
    server.enqueue(
      turn({
        reasoning: 'Check the note.',
        encryptedReasoning: 'sig-1',
        toolCalls: [{ name: 'read_note', arguments: { name: 'alpha' }, callId: 'toolu_a' }],
      }),
      turn({ text: 'Green.' }),
    );
    const first = await runTurn(anthropicModelFor(server, conformanceTuning));
    expect(first.result.status).toBe('completed');
    expect(server.requests[1]?.rawBody).toContain('"signature":"sig-1"');
    server.enqueue(turn({ text: 'ok' }));
    const history: Message[] = [...first.result.messages];
    await drain(
      anthropicModelFor(server, conformanceTuning, { modelId: 'claude-opus-4-6' }).doStream(
        { ...bareRequest('And now?'), history },
        {},
      ),
    );
    expect(server.requests[2]?.rawBody).not.toContain('sig-1');
  });

  it('is refused by the server when a thinking block carries a signature it never issued', async () => {
    const history: Message[] = [
      { role: 'user', content: 'earlier' },
      {
        role: 'assistant',
        content: [
          {
            type: 'reasoning',
            text: 'forged',
            providerMetadata: {
              anthropic: { signature: 'not-issued' },
              forge: { provider: 'anthropic', modelId: 'claude-sonnet-4-6' },
            },
          },
          { type: 'text', text: 'answer' },
        ],
      },
    ];
    const { error } = await drain(
      anthropicModelFor(server, conformanceTuning).doStream({ ...bareRequest('And now?'), history }, {}),
    );
    expect(ForgeError.isInstance(error) && error.code).toBe('provider_rejected');
    expect(String((error as Error).message)).toContain('Invalid `signature` in `thinking` block');
  });
});
