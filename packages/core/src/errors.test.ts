import { describe, expect, it } from 'vitest';
import { AuthError, ContextOverflowError, ForgeError, RateLimitError, TransportError } from './errors.js';

describe('typed errors', () => {
  it('are recognised by marker even when the class identity differs (duplicate package copies)', () => {
    const foreign = Object.assign(new Error('copy'), { [Symbol.for('forge.error')]: true, code: 'rate_limited' });
    expect(ForgeError.isInstance(foreign)).toBe(true);
    expect(RateLimitError.isInstance(foreign)).toBe(true);
    expect(ContextOverflowError.isInstance(foreign)).toBe(false);
    expect(ForgeError.isInstance(new Error('plain'))).toBe(false);
    expect(ForgeError.isInstance(null)).toBe(false);
  });

  it('carry structured fields instead of message text', () => {
    expect(new RateLimitError({ message: 'slow', retryAfterMs: 1500 })).toMatchObject({
      isRetryable: true,
      retryAfterMs: 1500,
      code: 'rate_limited',
    });
    expect(new ContextOverflowError({ message: 'big', limitTokens: 400_000 })).toMatchObject({
      isRetryable: false,
      limitTokens: 400_000,
    });
    expect(new AuthError({ message: 'no key', variable: 'OPENAI_API_KEY' })).toMatchObject({
      isRetryable: false,
      variable: 'OPENAI_API_KEY',
    });
    expect(new TransportError({ message: 'bad gateway', status: 502 })).toMatchObject({
      isRetryable: true,
      status: 502,
    });
  });
});
