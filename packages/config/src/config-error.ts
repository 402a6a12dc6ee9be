import { ForgeError } from '@forge/core';

/** One problem in a configuration source, located as precisely as the source allows. */
export interface ConfigIssue {
  /** Dotted path of the value (`context.bufferTokens`), empty for the whole file. */
  readonly path: string;
  readonly message: string;
  /** 1-based, for JSON syntax errors. */
  readonly line?: number;
  readonly column?: number;
}

/**
 * Configuration that cannot be used: unreadable JSON, an unknown key, a value of the wrong type.
 * The message names the file (or variable) and each problem, so a user can fix it directly.
 */
export class ConfigError extends ForgeError {
  static override readonly errorCode = 'invalid_config';
  /** The file or environment variable the problems are in. */
  readonly source: string;
  readonly issues: readonly ConfigIssue[];

  constructor(source: string, issues: readonly ConfigIssue[]) {
    const described = issues.map((issue) => {
      const where = issue.line === undefined ? '' : `line ${issue.line}, column ${issue.column ?? 1}: `;
      return `${where}${issue.path === '' ? '' : `${issue.path}: `}${issue.message}`;
    });
    super({ code: ConfigError.errorCode, message: `Invalid configuration in ${source}: ${described.join('; ')}.` });
    this.name = 'ConfigError';
    this.source = source;
    this.issues = issues;
  }
}
