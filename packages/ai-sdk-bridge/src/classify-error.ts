import { APICallError } from '@ai-sdk/provider';
import {
  AuthError,
  CancelledError,
  ContextOverflowError,
  ForgeError,
  RateLimitError,
  TransportError,
} from '@forge/core';

/** What the classifier needs to write messages a user can act on. */
export interface ProviderErrorContext {
  /** How users know the provider: `OpenAI`, `DeepSeek`, `the OpenAI-compatible server "local"`. */
  readonly providerLabel: string;
  readonly baseURL: string;
  /** The environment variable the key was read from, when there is one. */
  readonly keyVariable?: string;
  /** Provider-specific overflow messages, beyond the common ones. */
  readonly overflowPatterns?: readonly RegExp[];
  /** Reads the limit and the requested size from an overflow message whose numbers are not in the common order. */
  readonly overflowTokens?: (message: string) => OverflowTokens | undefined;
}

/** The sizes an overflow message states. */
export interface OverflowTokens {
  readonly limitTokens?: number;
  readonly requestedTokens?: number;
}

/** Details pulled out of whatever the AI SDK or the network threw. */
interface ErrorFacts {
  readonly status: number | undefined;
  readonly code: string | undefined;
  readonly message: string;
  readonly headers: Readonly<Record<string, string>>;
}

const OVERFLOW_CODES = new Set(['context_length_exceeded', 'context_window_exceeded', 'string_above_max_length']);
const COMMON_OVERFLOW_PATTERNS: readonly RegExp[] = [
  /context[ _-]?length/i,
  /maximum context/i,
  /context window/i,
  /prompt is too long/i,
  /too many (input )?tokens/i,
  /exceeds? the (model'?s )?(maximum )?(context|token limit|input limit)/i,
  /reduce the length of the (messages|input|prompt)/i,
];
const MALFORMED_ERROR_NAMES = new Set(['AI_JSONParseError', 'AI_TypeValidationError']);
const CUT_MESSAGES = /terminated|socket|ECONNRESET|other side closed|premature close|aborted by the server/i;

/**
 * Turns an error thrown by an AI SDK model (or the fetch under it) into the typed Forge error
 * callers branch on: overflow, rate limit, refused key, transport, or a provider rejection.
 */
export function classifyProviderError(error: unknown, context: ProviderErrorContext): ForgeError {
  if (ForgeError.isInstance(error)) return error;
  if (isAbort(error)) return new CancelledError();
  const where = `${context.providerLabel} at ${context.baseURL}`;
  if (error instanceof Error && MALFORMED_ERROR_NAMES.has(error.name)) {
    return new TransportError({
      message: `${where} sent a stream event that is not valid JSON for its protocol. Check that the base URL points at a server speaking this API.`,
      isRetryable: false,
      cause: error,
    });
  }

  const facts = factsOf(error);
  if (isOverflow(facts, context)) {
    const sizes = context.overflowTokens?.(facts.message) ?? commonOverflowTokens(facts.message);
    return new ContextOverflowError({
      message: `${where} refused the request: it does not fit the model's context window (${facts.message}). Compact the conversation or start a new session.`,
      ...(sizes.limitTokens === undefined ? {} : { limitTokens: sizes.limitTokens }),
      ...(sizes.requestedTokens === undefined ? {} : { requestedTokens: sizes.requestedTokens }),
      cause: error,
    });
  }
  if (facts.status === 401 || facts.status === 403) {
    const key = context.keyVariable === undefined ? 'the configured API key' : `the key in ${context.keyVariable}`;
    return new AuthError({
      message: `${where} refused ${key} (HTTP ${facts.status}: ${facts.message}). Check that the key is valid for this server${context.keyVariable === undefined ? '' : ` and update ${context.keyVariable}`}.`,
      ...(context.keyVariable === undefined ? {} : { variable: context.keyVariable }),
      cause: error,
    });
  }
  if (facts.status === 429 || facts.code === 'rate_limit_exceeded' || facts.code === 'insufficient_quota') {
    const retryAfterMs = retryAfterOf(facts.headers);
    return new RateLimitError({
      message: `${where} is rate limiting requests (${facts.message}).${retryAfterMs === undefined ? '' : ` It asked to wait ${Math.ceil(retryAfterMs / 1000)} s.`} Wait and try again, or lower the request rate.`,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      cause: error,
    });
  }
  if (facts.status !== undefined && facts.status >= 500) {
    return new TransportError({
      message: `${where} failed with a server error (HTTP ${facts.status}: ${facts.message}).`,
      status: facts.status,
      isRetryable: true,
      cause: error,
    });
  }
  if (facts.status !== undefined && facts.status >= 400) {
    return new ForgeError({
      code: 'provider_rejected',
      message: `${where} rejected the request (HTTP ${facts.status}${facts.code === undefined ? '' : `, ${facts.code}`}: ${facts.message}).`,
      isRetryable: false,
      cause: error,
    });
  }
  if (CUT_MESSAGES.test(facts.message) || facts.status === undefined) {
    return new TransportError({
      message: `The connection to ${where} failed or was cut before the response completed (${facts.message}).`,
      isRetryable: true,
      cause: error,
    });
  }
  return new TransportError({ message: `${where} failed: ${facts.message}`, isRetryable: false, cause: error });
}

/** The first two "N tokens" of a message: the limit, then the requested size (OpenAI's order). */
function commonOverflowTokens(message: string): OverflowTokens {
  const numbers = [...message.matchAll(/(\d[\d,]*)\s*tokens/gi)].map((match) =>
    Number((match[1] ?? '').replaceAll(',', '')),
  );
  return {
    ...(numbers[0] === undefined ? {} : { limitTokens: numbers[0] }),
    ...(numbers[1] === undefined ? {} : { requestedTokens: numbers[1] }),
  };
}

function isOverflow(facts: ErrorFacts, context: ProviderErrorContext): boolean {
  if (facts.code !== undefined && OVERFLOW_CODES.has(facts.code)) return true;
  if (facts.status === 429 || (facts.status !== undefined && facts.status >= 500)) return false;
  if (facts.status !== undefined && facts.status !== 400 && facts.status !== 413 && facts.status !== 422) return false;
  return [...COMMON_OVERFLOW_PATTERNS, ...(context.overflowPatterns ?? [])].some((pattern) =>
    pattern.test(facts.message),
  );
}

function factsOf(error: unknown): ErrorFacts {
  if (APICallError.isInstance(error)) {
    const body = record(error.data) ?? record(parseJson(error.responseBody));
    const detail = record(body?.['error']) ?? record(record(body?.['response'])?.['error']) ?? body;
    // A status below 400 means the answer started and the connection failed while reading it.
    const status = error.statusCode !== undefined && error.statusCode >= 400 ? error.statusCode : undefined;
    return {
      status,
      code: stringOf(detail?.['code']) ?? stringOf(detail?.['type']),
      message: stringOf(detail?.['message']) ?? (status === undefined ? messageWithCauses(error) : error.message),
      headers: error.responseHeaders ?? {},
    };
  }
  const value = record(error);
  if (value !== undefined && !(error instanceof Error)) {
    // A stream error part: the AI SDK's provider stream error, or the provider's raw error object.
    const detail = record(value['error']) ?? record(record(value['response'])?.['error']) ?? value;
    const status = typeof value['statusCode'] === 'number' ? value['statusCode'] : undefined;
    return {
      status,
      code: stringOf(detail['code']) ?? stringOf(value['code']),
      message: stringOf(detail['message']) ?? 'unknown stream error',
      headers: {},
    };
  }
  const message = error instanceof Error ? messageWithCauses(error) : String(error);
  return { status: undefined, code: undefined, message, headers: {} };
}

function messageWithCauses(error: Error): string {
  const parts = [error.message];
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 3 && cause instanceof Error; depth += 1) {
    parts.push(cause.message);
    cause = cause.cause;
  }
  return parts.join(': ');
}

/** `retry-after-ms`, then `retry-after` in seconds or as an HTTP date. */
export function retryAfterOf(headers: Readonly<Record<string, string>>, now: number = Date.now()): number | undefined {
  const lower = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  const milliseconds = Number.parseFloat(lower['retry-after-ms'] ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const after = lower['retry-after'];
  if (after === undefined) return undefined;
  const seconds = Number.parseFloat(after);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'ResponseAborted');
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : typeof value === 'number' ? String(value) : undefined;
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
