import { ForgeError } from '../errors.js';
import type { ErrorSummary } from '../events/events.js';

export function summarizeError(error: unknown): ErrorSummary {
  if (ForgeError.isInstance(error)) {
    return { code: error.code, message: error.message, isRetryable: error.isRetryable };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'unexpected', message, isRetryable: false };
}
