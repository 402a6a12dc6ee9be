import { ForgeError } from '@forge/core';

/** The Codex executable could not be found or started. */
export class CodexBinaryMissingError extends ForgeError {
  static override readonly errorCode = 'codex_binary_missing';
  readonly binaryPath: string | undefined;

  constructor(options: { message: string; binaryPath?: string; cause?: unknown }) {
    super({
      code: CodexBinaryMissingError.errorCode,
      message: options.message,
      isRetryable: false,
      cause: options.cause,
    });
    this.name = 'CodexBinaryMissingError';
    this.binaryPath = options.binaryPath;
  }
}

/** The `codex app-server` process ended while Forge still needed it. */
export class CodexExitedError extends ForgeError {
  static override readonly errorCode = 'codex_exited';
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** The last lines the process wrote to stderr, for the user to read. */
  readonly stderrTail: string;

  constructor(options: {
    message: string;
    exitCode: number | null;
    signal: string | null;
    stderrTail: string;
    cause?: unknown;
  }) {
    super({ code: CodexExitedError.errorCode, message: options.message, isRetryable: false, cause: options.cause });
    this.name = 'CodexExitedError';
    this.exitCode = options.exitCode;
    this.signal = options.signal;
    this.stderrTail = options.stderrTail;
  }
}

/** The App Server reported a version this client was not built and tested against. */
export class CodexVersionError extends ForgeError {
  static override readonly errorCode = 'codex_version';
  readonly reportedVersion: string | undefined;
  readonly userAgent: string;

  constructor(options: { message: string; reportedVersion?: string; userAgent: string }) {
    super({ code: CodexVersionError.errorCode, message: options.message, isRetryable: false });
    this.name = 'CodexVersionError';
    this.reportedVersion = options.reportedVersion;
    this.userAgent = options.userAgent;
  }
}

/**
 * The App Server answered a request with a JSON-RPC error, or sent something the client could not
 * read. `rpcCode` is the JSON-RPC error code when the server sent one.
 */
export class CodexProtocolError extends ForgeError {
  static override readonly errorCode = 'codex_protocol';
  readonly method: string | undefined;
  readonly rpcCode: number | undefined;

  constructor(options: { message: string; method?: string; rpcCode?: number; cause?: unknown }) {
    super({ code: CodexProtocolError.errorCode, message: options.message, isRetryable: false, cause: options.cause });
    this.name = 'CodexProtocolError';
    this.method = options.method;
    this.rpcCode = options.rpcCode;
  }
}
