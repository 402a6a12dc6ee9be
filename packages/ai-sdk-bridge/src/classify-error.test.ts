import { APICallError } from '@ai-sdk/provider';
import { AuthError, ContextOverflowError, RateLimitError, TransportError } from '@forge/core';
import { describe, expect, it } from 'vitest';
import { classifyProviderError, retryAfterOf } from './classify-error.js';
import { defaultRetryPolicy, retryDelayMs } from './retry.js';

const context = { providerLabel: 'DeepSeek', baseURL: 'https://api.deepseek.com', keyVariable: 'DEEPSEEK_API_KEY' };

function httpError(
  statusCode: number,
  error: Record<string, unknown>,
  headers: Record<string, string> = {},
): APICallError {
  return new APICallError({
    message: String(error['message']),
    url: 'u',
    requestBodyValues: {},
    statusCode,
    responseHeaders: headers,
    responseBody: JSON.stringify({ error }),
  });
}

describe('classifyProviderError', () => {
  it('recognises overflow by code, by provider pattern, and not on other 400s', () => {
    expect(
      ContextOverflowError.isInstance(
        classifyProviderError(httpError(400, { message: 'too big', code: 'context_length_exceeded' }), context),
      ),
    ).toBe(true);
    const custom = { ...context, overflowPatterns: [/prompt exceeds n_ctx/] };
    expect(
      ContextOverflowError.isInstance(
        classifyProviderError(httpError(400, { message: 'the prompt exceeds n_ctx' }), custom),
      ),
    ).toBe(true);
    const other = classifyProviderError(httpError(400, { message: 'Invalid schema for function read' }), context);
    expect(ContextOverflowError.isInstance(other)).toBe(false);
    expect(other.code).toBe('provider_rejected');
  });

  it('names the key variable on 401 and 403', () => {
    for (const status of [401, 403]) {
      const error = classifyProviderError(httpError(status, { message: 'Authentication Fails' }), context);
      expect(AuthError.isInstance(error) && error.variable).toBe('DEEPSEEK_API_KEY');
      expect(error.message).toContain('DEEPSEEK_API_KEY');
    }
  });

  it('turns 429 into a rate limit with the wait the server asked for', () => {
    const error = classifyProviderError(httpError(429, { message: 'busy' }, { 'Retry-After': '7' }), context);
    expect(RateLimitError.isInstance(error) && error.retryAfterMs).toBe(7000);
  });

  it('treats a connection that failed mid-answer as a retryable transport error', () => {
    const cut = new APICallError({
      message: 'Failed to process successful response',
      url: 'u',
      requestBodyValues: {},
      statusCode: 200,
      cause: new TypeError('terminated'),
    });
    const error = classifyProviderError(cut, context);
    expect(TransportError.isInstance(error) && error.isRetryable).toBe(true);
    expect(error.message).toContain('terminated');
  });
});

describe('retry-after and retry delays', () => {
  it('prefers retry-after-ms, then seconds, then an HTTP date', () => {
    expect(retryAfterOf({ 'retry-after-ms': '250', 'retry-after': '9' })).toBe(250);
    expect(retryAfterOf({ 'retry-after': '2' })).toBe(2000);
    expect(retryAfterOf({ 'retry-after': new Date(10_000).toUTCString() }, 4_000)).toBe(6000);
    expect(retryAfterOf({ 'retry-after': 'soon' })).toBeUndefined();
  });

  it('backs off exponentially, honours the asked wait, and stops at the budget or an overlong wait', () => {
    const transport = new TransportError({ message: 'down', status: 503 });
    expect([0, 1].map((retry) => retryDelayMs(transport, retry, defaultRetryPolicy))).toEqual([1000, 2000]);
    expect(retryDelayMs(transport, 2, defaultRetryPolicy)).toBeUndefined();
    expect(retryDelayMs(new RateLimitError({ message: 'x', retryAfterMs: 3000 }), 0, defaultRetryPolicy)).toBe(3000);
    expect(
      retryDelayMs(new RateLimitError({ message: 'x', retryAfterMs: 3_600_000 }), 0, defaultRetryPolicy),
    ).toBeUndefined();
    expect(
      retryDelayMs(new TransportError({ message: 'bad', isRetryable: false }), 0, defaultRetryPolicy),
    ).toBeUndefined();
  });
});
