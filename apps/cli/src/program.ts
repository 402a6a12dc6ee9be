import { Command } from 'commander';
import { UsageError } from './cli-error.js';
import {
  flag,
  jsonOutput,
  oneOf,
  parseOptions,
  positiveInteger,
  sessionTarget,
  text,
} from './commands/command-options.js';
import {
  command,
  commandOptions,
  engineGlobals,
  globalOptionSpecs,
  sessionTargetGlobals,
  type CommandEntry,
  type CommandGroup,
  type CommandInvocation,
  type GlobalOptionKey,
  type OptionsOf,
} from './commands/command.js';
import type { CliIo } from './io.js';
import { colorEnabled } from './output/style.js';
import { closestMatch } from './suggest.js';
import { forgeVersion } from './version.js';

/*
 * The command table. Adding a command takes two steps:
 *   1. declare its options below with `commandOptions` (its own flags, the globals it uses) and
 *      add one `command({...})` entry to `commands` (usage, description, the options, `load`);
 *   2. write `src/commands/<name>.ts` exporting `execute(invocation: CommandInvocation<XOptions>)`,
 *      typed with the options type exported here; `command` checks the two agree.
 * Keep this file cheap: it is all `forge --help` loads. Heavy modules belong in the command file.
 */

/** Groups of subcommands (`forge sessions list`); entries name them as the first word of `usage`. */
const groups: readonly CommandGroup[] = [
  { name: 'sessions', description: 'list and read stored sessions' },
  { name: 'import', description: 'bring a session another tool recorded into Forge' },
  { name: 'checkpoint', description: "read a session's checkpoint" },
  { name: 'models', description: 'the models Forge knows: limits, how requests are counted, calibration' },
  { name: 'calibration', description: "what Forge learned of a model's token counts from provider usage" },
  { name: 'config', description: 'show and check the configuration (FORGE_HOME/config.json, .forge/config.json)' },
  { name: 'mcp', description: 'sign in to remote MCP servers and out again (OAuth)' },
];

const COMPACTION_STRATEGIES = ['forge-state', 'model-structured', 'provider-native'] as const;

const runOptions = commandOptions({
  ...jsonOutput('print every event envelope as one JSON line on stdout instead of text'),
  session: flag(
    '--no-session',
    'store nothing: no session, no trace (default: a new session, or the one --resume/--last names)',
  ),
});
export type RunOptions = OptionsOf<typeof runOptions>;

/** How many sessions `forge sessions list` shows without `--limit` or `--all`. */
export const DEFAULT_SESSION_LIST_LIMIT = 20;

const sessionsListOptions = commandOptions(
  {
    ...jsonOutput('print the list as one JSON array'),
    limit: positiveInteger(
      '--limit <n>',
      `show at most n sessions, the newest (default ${DEFAULT_SESSION_LIST_LIMIT})`,
    ),
    all: flag('--all', 'show every session'),
    workspace: text('--workspace <dir>', "show only the sessions of this directory's workspace"),
  },
  ['forgeHome'],
);
export type SessionsListOptions = OptionsOf<typeof sessionsListOptions>;

const sessionsShowOptions = commandOptions(jsonOutput('print the session as one JSON document'), [
  'forgeHome',
  'cwd',
  'last',
]);
export type SessionsShowOptions = OptionsOf<typeof sessionsShowOptions>;

const compactOptions = commandOptions(
  {
    dryRun: flag('--dry-run', 'preview only: no model call, nothing written'),
    ...sessionTarget('the session to compact (or --last)'),
    focus: text(
      '--focus <text>',
      'what the checkpoint should keep in focus (recorded in the events; given to a compactor model)',
    ),
    strategy: oneOf(
      '--strategy <name>',
      'how the checkpoint is built, instead of context.compaction.strategy: forge-state (the default, no model call), model-structured (needs --compactor), provider-native',
      COMPACTION_STRATEGIES,
    ),
    compactor: text(
      '--compactor <provider:id>',
      'the model that receives the conversation to summarize with --strategy model-structured',
    ),
    ...jsonOutput('print the result as one JSON document'),
  },
  [...sessionTargetGlobals, ...engineGlobals],
);
export type CompactOptions = OptionsOf<typeof compactOptions>;

const checkpointShowOptions = commandOptions(
  {
    ...sessionTarget('the session to show (or --last)'),
    ...jsonOutput('print { checkpoint, view, mode } as one JSON document'),
  },
  [...sessionTargetGlobals, 'model', 'contextMode'],
);
export type CheckpointShowOptions = OptionsOf<typeof checkpointShowOptions>;

const importCodexOptions = commandOptions(
  {
    ...jsonOutput('print { state, view, checkpoint, messageCount } as one JSON document'),
    session: flag('--session', 'also store the transcript and its import checkpoint as a new session and print its id'),
  },
  ['forgeHome', 'cwd'],
);
export type ImportCodexOptions = OptionsOf<typeof importCodexOptions>;

const contextOptions = commandOptions(jsonOutput('print the report as one JSON document'), [
  ...sessionTargetGlobals,
  'model',
  'contextMode',
  'sandbox',
]);
export type ContextOptions = OptionsOf<typeof contextOptions>;

const modelsListOptions = commandOptions(jsonOutput('print { models: [...] } as one JSON document'), [
  'forgeHome',
  'cwd',
]);
export type ModelsListOptions = OptionsOf<typeof modelsListOptions>;

const modelsCalibrationResetOptions = commandOptions({}, ['forgeHome', 'cwd']);
export type ModelsCalibrationResetOptions = OptionsOf<typeof modelsCalibrationResetOptions>;

const configShowOptions = commandOptions(
  jsonOutput('print the values, their sources, the files and the warnings as one JSON document'),
  ['forgeHome', 'cwd', 'model', 'approval', 'contextMode', 'sandbox'],
);
export type ConfigShowOptions = OptionsOf<typeof configShowOptions>;

const configValidateOptions = commandOptions({}, ['forgeHome', 'cwd']);
export type ConfigValidateOptions = OptionsOf<typeof configValidateOptions>;

const mcpLoginOptions = commandOptions(
  {
    timeout: positiveInteger('--timeout <seconds>', 'how long to wait for the browser to come back (default: 300)'),
  },
  ['forgeHome', 'cwd'],
);
export type McpLoginOptions = OptionsOf<typeof mcpLoginOptions>;

const mcpLogoutOptions = commandOptions({}, ['forgeHome', 'cwd']);
export type McpLogoutOptions = OptionsOf<typeof mcpLogoutOptions>;

const gcOptions = commandOptions(
  {
    dryRun: flag('--dry-run', 'list what would be removed, and remove nothing'),
    ...jsonOutput('print { candidates, bytes, removed } as one JSON document'),
  },
  ['forgeHome'],
);
export type GcOptions = OptionsOf<typeof gcOptions>;

/** How many runs `forge inspect <session>` lists without `--limit`. */
export const DEFAULT_INSPECT_RUN_LIMIT = 20;

const inspectOptions = commandOptions(
  {
    last: flag('--last', "inspect the newest run of this workspace's most recent session"),
    ...jsonOutput('print the report as one JSON document'),
    html: text('--html <file>', 'also write a self-contained HTML page with a chart of context use per step'),
    limit: positiveInteger(
      '--limit <n>',
      `for a session: list the newest n runs, one line each (default ${DEFAULT_INSPECT_RUN_LIMIT})`,
    ),
    run: text('--run <id>', 'for a session: show this run in full (default: the newest run)'),
  },
  ['forgeHome', 'cwd', 'last'],
);
export type InspectOptions = OptionsOf<typeof inspectOptions>;

const evalOptions = commandOptions(
  {
    suite: text(
      '--suite <name>',
      'built-in fixtures to run: smoke (default, fast), realistic (real window sizes) or full',
    ),
    except: text(
      '--except <suites>',
      'leave out the fixtures that are also in these comma-separated suites (e.g. --suite full --except smoke,realistic)',
    ),
    fixtures: text('--fixtures <dir>', 'run every fixture (*.json) in this directory instead of a suite'),
    mode: text(
      '--mode <list>',
      'comma-separated modes: off, warn, shadow, compact (every strategy) or compact:<strategy>, baselines or baseline:<name> (default: all)',
    ),
    agent: text(
      '--agent <name>',
      'the policy agent that plays: cooperative (default), no-notes, sloppy, a comma-separated list, or all (side by side, gated each)',
    ),
    ...jsonOutput('print the whole report as one JSON document'),
    report: text('--report <dir>', 'also write report.md, report.html (charts) and report.json into this directory'),
    gates: text('--gates <file>', 'gate thresholds as JSON (see docs/evals.md)'),
    prices: text(
      '--prices <sheet>',
      'price sheet the costs are computed with: openai (default), deepseek, anthropic, or a JSON file of input, cached, write and output dollars per million tokens',
    ),
    live: flag(
      '--live',
      'play the fixtures with a real model (needs --model provider:id and its API key); never used in CI',
    ),
  },
  ['model'],
);
export type EvalOptions = OptionsOf<typeof evalOptions>;

const replOptions = commandOptions({});
export type ReplOptions = OptionsOf<typeof replOptions>;

const commands: readonly CommandEntry[] = [
  command({
    usage: 'run <prompt...>',
    description: 'run one prompt without interaction, print the answer and exit',
    ...runOptions,
    helpText: [
      '',
      'Exit codes: 0 completed, 1 failed or stopped at a limit, 2 usage or configuration error, 130 cancelled (Ctrl-C),',
      '129 / 143 cancelled because the terminal closed (SIGHUP) / by SIGTERM, 141 cancelled because stdout was closed.',
      '',
      'Example:',
      '  forge run --model scripted:demo "Summarise the workspace"',
    ].join('\n'),
    load: () => import('./commands/run.js'),
  }),
  command({
    usage: 'sessions list',
    description: 'list stored sessions, most recent first',
    ...sessionsListOptions,
    load: () => import('./commands/sessions-list.js'),
  }),
  command({
    usage: 'sessions show [id]',
    description:
      "show a session's runs and messages (the id or a unique prefix of it; --last: this workspace's newest)",
    ...sessionsShowOptions,
    load: () => import('./commands/sessions-show.js'),
  }),
  command({
    usage: 'compact',
    description:
      'compact a session now: older turns become a checkpoint the next turns send instead (the transcript is kept); --dry-run previews',
    ...compactOptions,
    load: () => import('./commands/compact.js'),
  }),
  command({
    usage: 'checkpoint show',
    description: "print a session's current checkpoint as the model is sent it, and its provenance",
    ...checkpointShowOptions,
    load: () => import('./commands/checkpoint-show.js'),
  }),
  command({
    usage: 'import codex <rollout>',
    description:
      'read a Codex rollout (rollout-*.jsonl): print its checkpoint view, a summary on stderr; --session stores it as a Forge session (--cwd: the workspace to hash files in and file the session under)',
    ...importCodexOptions,
    load: () => import('./commands/import-codex.js'),
  }),
  command({
    usage: 'context',
    description:
      "show what the next request would cost before sending it: model window and its source, tokens by category, reserve, retained turns, free space (with --last or --resume <id>: that session's history)",
    ...contextOptions,
    load: () => import('./commands/context.js'),
  }),
  command({
    usage: 'models list',
    description:
      'list every model of the capability tables and each configured compatible server: window, output limit, input cap, how requests are counted, calibration from provider usage, and the source of each figure (no API key needed)',
    ...modelsListOptions,
    load: () => import('./commands/models-list.js'),
  }),
  command({
    usage: 'models calibration reset <model>',
    description:
      'forget the provider usage recorded for a model (provider:id), so its requests are counted with the raw estimate again; use it when a wrong usage report makes runs stop before sending',
    ...modelsCalibrationResetOptions,
    load: () => import('./commands/models-calibration-reset.js'),
  }),
  command({
    usage: 'config show',
    description:
      'print the effective configuration and where each value comes from (default, user file, project file, env variable, flag)',
    ...configShowOptions,
    load: () => import('./commands/config-show.js'),
  }),
  command({
    usage: 'config validate [file]',
    description:
      'check a configuration file against the schema (default: the user and the project file); exit 1 when one is invalid',
    ...configValidateOptions,
    load: () => import('./commands/config-validate.js'),
  }),
  command({
    usage: 'mcp login <server>',
    description:
      'sign in to a remote MCP server with OAuth: prints the authorization address (and opens it in a browser when one is at hand), receives the code on a loopback redirect, keeps the tokens in FORGE_HOME (0600)',
    ...mcpLoginOptions,
    load: () => import('./commands/mcp-login.js'),
  }),
  command({
    usage: 'mcp logout <server>',
    description: "forget a remote MCP server's OAuth tokens and client registration",
    ...mcpLogoutOptions,
    load: () => import('./commands/mcp-logout.js'),
  }),
  command({
    usage: 'gc',
    description:
      'prune run traces older than traces.keepDays (the newest traces.keepRuns are kept) and files a crash left behind; never a session log (--dry-run: only list them)',
    ...gcOptions,
    load: () => import('./commands/gc.js'),
  }),
  command({
    usage: 'inspect [target]',
    description:
      "show a run, a session's runs or a trace file (an id or a unique prefix): summary, budget per step, compactions, stops, tool calls (--last: this workspace's newest run)",
    ...inspectOptions,
    load: () => import('./commands/inspect.js'),
  }),
  command({
    usage: 'eval',
    description:
      'run the eval fixtures in every context mode and the naive baselines, print metrics and release gates (offline: a policy model plays the agent); exit 1 when a gate fails',
    ...evalOptions,
    load: () => import('./commands/eval.js'),
  }),
];

/** What `forge` does without a command: the interactive REPL. */
const interactive: CommandEntry = command({
  usage: '',
  description:
    'Forge: a terminal coding agent that keeps its context trustworthy. Without a command, starts the interactive REPL.',
  ...replOptions,
  load: () => import('./commands/repl.js'),
});

/**
 * A global option given to a command that does not use it is a usage error: silently ignoring
 * `--resume` or `--approval` would let the user believe it took effect.
 */
function rejectUnusedGlobals(entry: CommandEntry, command: Command): void {
  const accepted = entry.globals;
  if (accepted === undefined) return;
  const values = command.optsWithGlobals();
  const own = new Set(command.options.map((option) => option.attributeName()));
  const program = rootOf(command);
  for (const option of program.options) {
    const key = option.attributeName() as GlobalOptionKey;
    if (
      values[key] === undefined ||
      own.has(key) ||
      accepted.includes(key) ||
      program.getOptionValueSource(key) === 'default'
    )
      continue;
    const name = `forge ${commandPath(command)}`;
    throw new UsageError(
      `${option.long ?? key} does not apply to '${name}', which would ignore it; leave it out (see '${name} --help')`,
    );
  }
}

function rootOf(command: Command): Command {
  let current = command;
  while (current.parent !== null) current = current.parent;
  return current;
}

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current?.parent !== null && current !== null; current = current.parent)
    names.unshift(current.name());
  return names.join(' ');
}

/** The commands a program is built from; tests substitute their own. */
export interface CommandTable {
  readonly groups: readonly CommandGroup[];
  readonly commands: readonly CommandEntry[];
  /** Runs when no command is given. */
  readonly interactive: CommandEntry;
}

export const commandTable: CommandTable = { groups, commands, interactive };

/**
 * Builds the `forge` program for one invocation. Each action loads its implementation on demand
 * and hands the exit code it returns to `setExitCode`.
 */
export function createProgram(
  io: CliIo,
  setExitCode: (code: number) => void,
  table: CommandTable = commandTable,
): Command {
  const program = new Command('forge');
  program
    .description(table.interactive.description)
    .version(forgeVersion(), '-V, --version', 'print the version and exit')
    .helpOption('-h, --help', 'show help')
    .helpCommand(false)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // One line, like every other error (commander puts its suggestion on a second line).
      outputError: (text, write) => write(`forge: ${text.trim().replace(/\s*\n\s*/g, ' ')}\n`),
      getOutHelpWidth: () => (io.stdout.isTTY === true ? (io.stdout.columns ?? 80) : 80),
      getErrHelpWidth: () => (io.stderr.isTTY === true ? (io.stderr.columns ?? 80) : 80),
      getOutHasColors: () => colorEnabled(io.stdout, io.env),
      getErrHasColors: () => colorEnabled(io.stderr, io.env),
    })
    .configureHelp({ showGlobalOptions: true })
    .allowExcessArguments(true);
  for (const spec of Object.values(globalOptionSpecs)) program.addOption(spec.option());
  program.addHelpText(
    'after',
    [
      '',
      'Examples:',
      '  forge                                   start the interactive REPL',
      '  forge run "Summarise the workspace"     answer one prompt and exit',
    ].join('\n'),
  );

  program.action(async (_options: unknown, command: Command) => {
    const [unknown] = command.args;
    if (unknown !== undefined) {
      const suggestion = closestMatch(
        unknown,
        command.commands.map((candidate) => candidate.name()),
      );
      const hint = suggestion === undefined ? '' : `did you mean 'forge ${suggestion}'? `;
      throw new UsageError(`unknown command '${unknown}'; ${hint}run 'forge --help' to see the commands`);
    }
    await runEntry(table.interactive, [], command, io, setExitCode);
  });

  for (const entry of table.commands) register(program, entry, table.groups, io, setExitCode);
  return program;
}

function register(
  program: Command,
  entry: CommandEntry,
  groups: readonly CommandGroup[],
  io: CliIo,
  setExitCode: (code: number) => void,
): void {
  const words = entry.usage.split(/\s+/).filter((word) => word.length > 0);
  const argumentStart = words.findIndex((word) => word.startsWith('<') || word.startsWith('['));
  const path = argumentStart === -1 ? words : words.slice(0, argumentStart);
  const argumentsUsage = argumentStart === -1 ? [] : words.slice(argumentStart);
  const name = path.at(-1);
  if (name === undefined) throw new Error(`Command table entry "${entry.usage}" has no command name.`);

  let parent = program;
  for (const groupName of path.slice(0, -1)) parent = groupCommand(parent, groupName, groups);
  const command = parent.command([name, ...argumentsUsage].join(' ')).description(entry.description);
  for (const spec of Object.values(entry.options ?? {})) command.addOption(spec.option());
  if (entry.helpText !== undefined) command.addHelpText('after', entry.helpText);
  command.action(async (...parameters: unknown[]) => {
    const invoked = parameters.at(-1) as Command;
    const positional = parameters.slice(0, -2) as CommandInvocation['args'];
    await runEntry(entry, positional, invoked, io, setExitCode);
  });
}

function groupCommand(parent: Command, name: string, groups: readonly CommandGroup[]): Command {
  const existing = parent.commands.find((command) => command.name() === name);
  if (existing !== undefined) return existing;
  const group = groups.find((candidate) => candidate.name === name);
  return parent.command(name).description(group?.description ?? '');
}

async function runEntry(
  entry: CommandEntry,
  args: CommandInvocation['args'],
  command: Command,
  io: CliIo,
  setExitCode: (code: number) => void,
): Promise<void> {
  rejectUnusedGlobals(entry, command);
  const implementation = await entry.load();
  const options = parseOptions({ ...globalOptionSpecs, ...entry.options }, command.optsWithGlobals());
  setExitCode(await implementation.execute({ args, options, io }));
}
