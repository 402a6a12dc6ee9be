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

  /** A subclass sets the `code` its errors carry; its `isInstance` then recognises exactly those. */
  static readonly errorCode: string | undefined = undefined;

  /**
   * `ForgeError.isInstance`: any Forge error; `AuthError.isInstance`: a Forge error with
   * `AuthError.errorCode`. Checks a marker and the code, not the prototype, so it works across
   * duplicate package copies. Call it on the class (`AuthError.isInstance(error)`), not detached.
   */
  static isInstance<T extends ForgeError>(
    this: { readonly errorCode: string | undefined; readonly prototype: T },
    error: unknown,
  ): error is T {
    if (typeof error !== 'object' || error === null || (error as Record<symbol, unknown>)[marker] !== true)
      return false;
    return this.errorCode === undefined || (error as ForgeError).code === this.errorCode;
  }
}

/** The provider refused the request because it does not fit the model's context window. */
export class ContextOverflowError extends ForgeError {
  static override readonly errorCode = 'context_overflow';
  readonly limitTokens: number | undefined;
  readonly requestedTokens: number | undefined;

  constructor(options: { message: string; limitTokens?: number; requestedTokens?: number; cause?: unknown }) {
    super({ code: ContextOverflowError.errorCode, message: options.message, isRetryable: false, cause: options.cause });
    this.name = 'ContextOverflowError';
    this.limitTokens = options.limitTokens;
    this.requestedTokens = options.requestedTokens;
  }
}

/** The provider asked us to slow down. `retryAfterMs` is what it said, when it said anything. */
export class RateLimitError extends ForgeError {
  static override readonly errorCode = 'rate_limited';
  readonly retryAfterMs: number | undefined;

  constructor(options: { message: string; retryAfterMs?: number; cause?: unknown }) {
    super({ code: RateLimitError.errorCode, message: options.message, isRetryable: true, cause: options.cause });
    this.name = 'RateLimitError';
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** The credentials are missing or were refused. Retrying with the same key cannot help. */
export class AuthError extends ForgeError {
  static override readonly errorCode = 'auth';
  readonly variable: string | undefined;

  constructor(options: { message: string; variable?: string; cause?: unknown }) {
    super({ code: AuthError.errorCode, message: options.message, isRetryable: false, cause: options.cause });
    this.name = 'AuthError';
    this.variable = options.variable;
  }
}

/** The connection failed, the stream was cut, or the provider answered with a server error. */
export class TransportError extends ForgeError {
  static override readonly errorCode = 'transport';
  readonly status: number | undefined;

  constructor(options: { message: string; status?: number; isRetryable?: boolean; cause?: unknown }) {
    super({
      code: TransportError.errorCode,
      message: options.message,
      isRetryable: options.isRetryable ?? true,
      cause: options.cause,
    });
    this.name = 'TransportError';
    this.status = options.status;
  }
}

/** Input from the user, a file or the wire was not what it must be. The message says what and where. */
export class InvalidInputError extends ForgeError {
  static override readonly errorCode = 'invalid_input';
  constructor(options: { message: string; cause?: unknown }) {
    super({ code: InvalidInputError.errorCode, message: options.message, isRetryable: false, cause: options.cause });
    this.name = 'InvalidInputError';
  }
}

/** The run was cancelled through its AbortSignal. */
export class CancelledError extends ForgeError {
  static override readonly errorCode = 'cancelled';
  constructor(message = 'The run was cancelled.') {
    super({ code: CancelledError.errorCode, message, isRetryable: false });
    this.name = 'CancelledError';
  }
}
