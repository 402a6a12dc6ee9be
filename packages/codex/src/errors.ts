import { ForgeError } from '@forge/core';

/** The Codex executable could not be found or started. */
export class CodexBinaryMissingError extends ForgeError {
  readonly binaryPath: string | undefined;

  constructor(options: { message: string; binaryPath?: string; cause?: unknown }) {
    super({ code: 'codex_binary_missing', message: options.message, isRetryable: false, cause: options.cause });
    this.name = 'CodexBinaryMissingError';
    this.binaryPath = options.binaryPath;
  }

  static override isInstance(error: unknown): error is CodexBinaryMissingError {
    return ForgeError.isInstance(error) && error.code === 'codex_binary_missing';
  }
}

/** The `codex app-server` process ended while Forge still needed it. */
export class CodexExitedError extends ForgeError {
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** The last lines the process wrote to stderr, for the user to read. */
  readonly stderrTail: string;

  constructor(options: { message: string; exitCode: number | null; signal: string | null; stderrTail: string; cause?: unknown }) {
    super({ code: 'codex_exited', message: options.message, isRetryable: false, cause: options.cause });
    this.name = 'CodexExitedError';
    this.exitCode = options.exitCode;
    this.signal = options.signal;
    this.stderrTail = options.stderrTail;
  }

  static override isInstance(error: unknown): error is CodexExitedError {
    return ForgeError.isInstance(error) && error.code === 'codex_exited';
  }
}

/** The App Server reported a version this client was not built and tested against. */
export class CodexVersionError extends ForgeError {
  readonly reportedVersion: string | undefined;
  readonly userAgent: string;

  constructor(options: { message: string; reportedVersion?: string; userAgent: string }) {
    super({ code: 'codex_version', message: options.message, isRetryable: false });
    this.name = 'CodexVersionError';
    this.reportedVersion = options.reportedVersion;
    this.userAgent = options.userAgent;
  }

  static override isInstance(error: unknown): error is CodexVersionError {
    return ForgeError.isInstance(error) && error.code === 'codex_version';
  }
}

/**
 * The App Server answered a request with a JSON-RPC error, or sent something the client could not
 * read. `rpcCode` is the JSON-RPC error code when the server sent one.
 */
export class CodexProtocolError extends ForgeError {
  readonly method: string | undefined;
  readonly rpcCode: number | undefined;

  constructor(options: { message: string; method?: string; rpcCode?: number; cause?: unknown }) {
    super({ code: 'codex_protocol', message: options.message, isRetryable: false, cause: options.cause });
    this.name = 'CodexProtocolError';
    this.method = options.method;
    this.rpcCode = options.rpcCode;
  }

  static override isInstance(error: unknown): error is CodexProtocolError {
    return ForgeError.isInstance(error) && error.code === 'codex_protocol';
  }
}
