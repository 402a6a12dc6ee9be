import { ENGINE_NAMES } from '../engines/turn-engine.js';
import type { CliIo } from '../io.js';
import { flag, oneOf, positiveInteger, text, type OptionSpecs, type ParsedOptions } from './command-options.js';

/**
 * Options every command accepts (declared once on the program, valid before or after the command
 * name). A command lists the ones it uses in its entry's `globals`; any other one is refused.
 */
export const globalOptionSpecs = {
  model: text(
    '-m, --model <provider:id>',
    'model to use: scripted:demo, openai:<id>, deepseek:<id>, anthropic:<id>, compatible:<name> (default: the configured model, else scripted:demo)',
  ),
  cwd: text('-C, --cwd <dir>', 'workspace root (default: the current directory)'),
  approval: oneOf(
    '--approval <profile>',
    'which tool calls may run without asking (default: the configured profile, else ask)',
    ['read-only', 'ask', 'workspace-write', 'workspace-auto'],
  ),
  maxSteps: positiveInteger('--max-steps <n>', 'model steps allowed per run (default: 25)'),
  forgeHome: text('--forge-home <dir>', 'where sessions and traces are kept (default: $FORGE_HOME, else ~/.forge)'),
  resume: text('--resume <id>', 'continue a stored session: its id or a unique prefix (see forge sessions list)'),
  last: flag('--last', "continue this workspace's most recent session"),
  contextMode: oneOf(
    '--context-mode <mode>',
    'context management for this invocation: off, warn, shadow or compact (default from the configuration, else compact)',
    ['off', 'warn', 'shadow', 'compact'],
  ),
  sandbox: oneOf(
    '--sandbox <mode>',
    'where run_command may write: read-only, workspace-write (the workspace, network off) or off (default: the configured mode, else workspace-write)',
    ['read-only', 'workspace-write', 'off'],
  ),
  engine: oneOf(
    '--engine <name>',
    "what runs each turn: native (Forge's own loop, default) or codex (the Codex CLI's App Server; --model codex:<model>)",
    ENGINE_NAMES,
  ),
} as const satisfies OptionSpecs;

/** The global options, typed (`--forge-home` → `forgeHome`). */
export type GlobalOptions = ParsedOptions<typeof globalOptionSpecs>;

/** The global options by their camel-cased key. */
export type GlobalOptionKey = keyof GlobalOptions;

/** An approval profile as the `--approval` flag names it. */
export type ApprovalProfileName = NonNullable<GlobalOptions['approval']>;

/** The globals that name a stored session and where it lives: `--last`, `--resume <id>`, `--forge-home`, `--cwd`. */
export const sessionTargetGlobals = [
  'forgeHome',
  'cwd',
  'last',
  'resume',
] as const satisfies readonly GlobalOptionKey[];

/** The globals that choose what runs a turn: `--model` and `--engine`. */
export const engineGlobals = ['model', 'engine'] as const satisfies readonly GlobalOptionKey[];

/** What a command receives: its own options and the globals it accepts, typed and parsed once. */
export type CommandOptions<
  Specs extends OptionSpecs = OptionSpecs,
  Globals extends GlobalOptionKey = GlobalOptionKey,
> = ParsedOptions<Specs> & Pick<GlobalOptions, Globals>;

/** What a command's implementation receives when it runs. */
export interface CommandInvocation<Options = CommandOptions> {
  /** Positional arguments in declaration order; a variadic argument arrives as an array. */
  readonly args: readonly (string | readonly string[] | undefined)[];
  /** Global options merged with the command's own, parsed from commander's values. */
  readonly options: Options;
  readonly io: CliIo;
}

/** The module behind a command, loaded with `import()` only when the command runs. */
export interface CommandModule<Options = CommandOptions> {
  /** Runs the command and returns the process exit code. Throw a `CliError` for one-line failures. */
  readonly execute: (invocation: CommandInvocation<Options>) => Promise<number>;
}

/** A command's own options and the global options it uses, declared together. */
export interface CommandOptionSet<
  Specs extends OptionSpecs = OptionSpecs,
  Globals extends GlobalOptionKey = GlobalOptionKey,
> {
  readonly options: Specs;
  /**
   * The global options this command uses; any other one given is a usage error, so a flag is
   * never silently ignored. Undefined accepts them all (the REPL and `forge run`).
   */
  readonly globals?: readonly Globals[];
}

/** The typed options of an option set, for the command module's `execute`. */
export type OptionsOf<Set> =
  Set extends CommandOptionSet<infer Specs, infer Globals> ? CommandOptions<Specs, Globals> : never;

/** Declares a command's options: its own flags (a spec record) and the globals it accepts (all when omitted). */
export function commandOptions<
  const Specs extends OptionSpecs,
  const Globals extends GlobalOptionKey = GlobalOptionKey,
>(options: Specs, globals?: readonly Globals[]): CommandOptionSet<Specs, Globals> {
  return globals === undefined ? { options } : { options, globals };
}

/**
 * One row of the command table. Everything here is evaluated for `forge --help`, so it holds only
 * names, descriptions and cheap option parsers; the implementation comes from `load`.
 */
export interface CommandEntry extends Partial<CommandOptionSet> {
  /**
   * The command path and its arguments in commander syntax, e.g. `run <prompt...>`, or
   * `sessions show <id>` for a subcommand of a group. Groups are created on first use.
   */
  readonly usage: string;
  readonly description: string;
  /** Lines appended to the command's `--help`. */
  readonly helpText?: string;
  readonly load: () => Promise<CommandModule>;
}

/**
 * A command table row whose module is checked against its options: `execute` must accept exactly
 * what the option set parses into.
 */
export function command<Specs extends OptionSpecs, Globals extends GlobalOptionKey>(
  entry: Omit<CommandEntry, 'options' | 'globals' | 'load'> &
    CommandOptionSet<Specs, Globals> & {
      readonly load: () => Promise<CommandModule<NoInfer<CommandOptions<Specs, Globals>>>>;
    },
): CommandEntry {
  // The parser builds the options from these same specs, so the module receives what it declares.
  return entry as unknown as CommandEntry;
}

/** A command group such as `sessions`: a name under which entries with a matching `usage` prefix live. */
export interface CommandGroup {
  readonly name: string;
  readonly description: string;
}
