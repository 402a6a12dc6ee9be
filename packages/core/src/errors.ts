const marker = Symbol.for('forge.error');

/**
 * The one base class for errors Forge raises on purpose. Callers branch on `code` and
 * `isRetryable`, never on message text. `isInstance` works across duplicate package copies.
 */
export class ForgeError extends Error {
  private readonly [marker] = true;
  readonly code: string;
  readonly isRetryable: boolean;

  constructor(options: { code: string; message: string; isRetryable?: boolean; cause?: unknown }) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ForgeError';
    this.code = options.code;
    this.isRetryable = options.isRetryable ?? false;
  }

  static isInstance(error: unknown): error is ForgeError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[marker] === true;
  }
}

/** The provider refused the request because it does not fit the model's context window. */
export class ContextOverflowError extends ForgeError {
  readonly limitTokens: number | undefined;
  readonly requestedTokens: number | undefined;

  constructor(options: { message: string; limitTokens?: number; requestedTokens?: number; cause?: unknown }) {
    super({ code: 'context_overflow', message: options.message, isRetryable: false, cause: options.cause });
    this.name = 'ContextOverflowError';
    this.limitTokens = options.limitTokens;
    this.requestedTokens = options.requestedTokens;
  }

  static override isInstance(error: unknown): error is ContextOverflowError {
    return ForgeError.isInstance(error) && error.code === 'context_overflow';
  }
}

/** The provider asked us to slow down. `retryAfterMs` is what it said, when it said anything. */
export class RateLimitError extends ForgeError {
  readonly retryAfterMs: number | undefined;

  constructor(options: { message: string; retryAfterMs?: number; cause?: unknown }) {
    super({ code: 'rate_limited', message: options.message, isRetryable: true, cause: options.cause });
    this.name = 'RateLimitError';
    this.retryAfterMs = options.retryAfterMs;
  }

  static override isInstance(error: unknown): error is RateLimitError {
    return ForgeError.isInstance(error) && error.code === 'rate_limited';
  }
}

/** The credentials are missing or were refused. Retrying with the same key cannot help. */
export class AuthError extends ForgeError {
  readonly variable: string | undefined;

  constructor(options: { message: string; variable?: string; cause?: unknown }) {
    super({ code: 'auth', message: options.message, isRetryable: false, cause: options.cause });
    this.name = 'AuthError';
    this.variable = options.variable;
  }

  static override isInstance(error: unknown): error is AuthError {
    return ForgeError.isInstance(error) && error.code === 'auth';
  }
}

/** The connection failed, the stream was cut, or the provider answered with a server error. */
export class TransportError extends ForgeError {
  readonly status: number | undefined;

  constructor(options: { message: string; status?: number; isRetryable?: boolean; cause?: unknown }) {
    super({ code: 'transport', message: options.message, isRetryable: options.isRetryable ?? true, cause: options.cause });
    this.name = 'TransportError';
    this.status = options.status;
  }

  static override isInstance(error: unknown): error is TransportError {
    return ForgeError.isInstance(error) && error.code === 'transport';
  }
}

/** Input from the user, a file or the wire was not what it must be. The message says what and where. */
export class InvalidInputError extends ForgeError {
  constructor(options: { message: string; cause?: unknown }) {
    super({ code: 'invalid_input', message: options.message, isRetryable: false, cause: options.cause });
    this.name = 'InvalidInputError';
  }

  static override isInstance(error: unknown): error is InvalidInputError {
    return ForgeError.isInstance(error) && error.code === 'invalid_input';
  }
}

/** The run was cancelled through its AbortSignal. */
export class CancelledError extends ForgeError {
  constructor(message = 'The run was cancelled.') {
    super({ code: 'cancelled', message, isRetryable: false });
    this.name = 'CancelledError';
  }

  static override isInstance(error: unknown): error is CancelledError {
    return ForgeError.isInstance(error) && error.code === 'cancelled';
  }
}
