import { ForgeError } from '../errors.js';
import type { ErrorSummary } from '../events/events.js';

/**
 * What an event or a stored run says about a failure: a `ForgeError`'s code, message and
 * retryability; anything else by its message, under `fallbackCode`, not retryable.
 */
export function summarizeError(error: unknown, fallbackCode = 'unexpected'): ErrorSummary {
  if (ForgeError.isInstance(error)) {
    return { code: error.code, message: error.message, isRetryable: error.isRetryable };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: fallbackCode, message, isRetryable: false };
}
