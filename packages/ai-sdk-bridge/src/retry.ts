import { CancelledError, RateLimitError, TransportError, type ForgeError } from '@forge/core';

/** How a failed attempt is retried. Only attempts that streamed nothing are ever retried. */
export interface RetryPolicy {
  /** Retries after the first attempt (default 2). */
  readonly maxRetries: number;
  /** First backoff delay when the provider gave no retry-after (default 1000 ms); doubles each retry. */
  readonly baseDelayMs: number;
  /** The longest wait accepted, whether computed or asked for by retry-after (default 60 s). */
  readonly maxDelayMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { maxRetries: 2, baseDelayMs: 1000, maxDelayMs: 60_000 };

/**
 * The delay before retry number `retry` (0-based), or undefined when the error must not be
 * retried: it is not a rate limit or a retryable transport failure, the retries are used up, or
 * the provider asked for a longer wait than the policy accepts.
 */
export function retryDelayMs(error: ForgeError, retry: number, policy: RetryPolicy): number | undefined {
  if (retry >= policy.maxRetries) return undefined;
  const retryable = RateLimitError.isInstance(error) || (TransportError.isInstance(error) && error.isRetryable);
  if (!retryable) return undefined;
  const asked = RateLimitError.isInstance(error) ? error.retryAfterMs : undefined;
  const delay = asked ?? policy.baseDelayMs * 2 ** retry;
  return delay > policy.maxDelayMs ? undefined : delay;
}

/** Waits `ms`, or throws `CancelledError` as soon as `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new CancelledError());
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new CancelledError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
