import type { Option } from 'commander';
import type { CliIo } from '../io.js';

/** An approval profile as the `--approval` flag names it. */
export type ApprovalProfileName = 'read-only' | 'ask' | 'workspace-write' | 'workspace-auto';

/** Options every command accepts (declared once on the program, valid before or after the command name). */
export interface GlobalOptions {
  readonly model?: string;
  readonly cwd?: string;
  readonly approval?: ApprovalProfileName;
  readonly maxSteps?: number;
}

/** The global options by their camel-cased key (`--forge-home` → `forgeHome`). */
export type GlobalOptionKey = 'model' | 'cwd' | 'approval' | 'maxSteps' | 'forgeHome' | 'resume' | 'last' | 'contextMode' | 'engine';

/** What a command's implementation receives when it runs. */
export interface CommandInvocation {
  /** Positional arguments in declaration order; a variadic argument arrives as an array. */
  readonly args: readonly (string | readonly string[] | undefined)[];
  /** Global options merged with the command's own (commander's camel-cased keys). */
  readonly options: GlobalOptions & Readonly<Record<string, unknown>>;
  readonly io: CliIo;
}

/** The module behind a command, loaded with `import()` only when the command runs. */
export interface CommandModule {
  /** Runs the command and returns the process exit code. Throw a `CliError` for one-line failures. */
  execute(invocation: CommandInvocation): Promise<number>;
}

/**
 * One row of the command table. Everything here is evaluated for `forge --help`, so it holds only
 * names, descriptions and cheap option parsers; the implementation comes from `load`.
 */
export interface CommandEntry {
  /**
   * The command path and its arguments in commander syntax, e.g. `run <prompt...>`, or
   * `sessions show <id>` for a subcommand of a group. Groups are created on first use.
   */
  readonly usage: string;
  readonly description: string;
  readonly options?: readonly Option[];
  /** Lines appended to the command's `--help`. */
  readonly helpText?: string;
  /**
   * The global options this command uses; any other one given is a usage error, so a flag is
   * never silently ignored. Undefined accepts them all (the REPL and `forge run`).
   */
  readonly globals?: readonly GlobalOptionKey[];
  readonly load: () => Promise<CommandModule>;
}

/** A command group such as `sessions`: a name under which entries with a matching `usage` prefix live. */
export interface CommandGroup {
  readonly name: string;
  readonly description: string;
}
