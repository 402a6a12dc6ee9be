import type { ForgeConfig } from '@forge/config';
import type { TurnEngine } from '../engines/turn-engine.js';
import type { Style } from '../output/style.js';
import { wrapLine } from '../output/text-width.js';
import { controlSlashCommands } from './control-slash-commands.js';
import { mcpSlashCommand } from './mcp-slash-command.js';
import type { ReplSession } from './repl-session.js';
import { sessionSlashCommands } from './session-slash-commands.js';
import type { ContextUseTracker } from './status-line.js';

/** What slash commands can see and change of the running REPL. */
export interface ReplContext {
  /** What runs the turns (`--engine`): its model, workspace root and approval gate. */
  readonly engine: TurnEngine;
  readonly style: Style;
  /** The session the REPL writes: its id, settings, turns, and `/resume` and `/new`. */
  readonly session: ReplSession;
  /** The configuration the REPL was started with (flags included). */
  readonly config: ForgeConfig;
  /** Context use of the latest request (the footer's figures); reset when they no longer apply. */
  readonly contextUse: ContextUseTracker;
  /** Columns of the terminal long text is wrapped to (`Infinity` when output is not a terminal). */
  width(): number;
  print(text: string): void;
}

export type SlashOutcome = 'continue' | 'exit';

/**
 * A `/command` of the REPL. Add one by appending to `slashCommands`; `/help` and completion
 * pick it up.
 */
export interface SlashCommand {
  readonly name: string;
  /** Argument syntax shown by /help, e.g. `[focus…]`. */
  readonly arguments?: string;
  readonly summary: string;
  run(context: ReplContext, argument: string): SlashOutcome | Promise<SlashOutcome>;
  /** Whole arguments Tab may complete to (filtered by what is typed). */
  complete?(context: ReplContext): readonly string[];
}

const help: SlashCommand = {
  name: 'help',
  summary: 'show commands and keys',
  run(context) {
    const terminal = context.width();
    const width = Math.max(...slashCommands.map((command) => usage(command).length));
    // On a narrow terminal descriptions go under their command instead of beside it.
    const beside = terminal === Infinity || terminal - (width + 4) >= 30;
    const indent = beside ? ' '.repeat(width + 4) : '      ';
    const row = (name: string, text: string) =>
      beside ? [`  ${name.padEnd(width)}  ${text}`] : [`  ${name}`, `${indent}${text}`];
    const wrap = (lines: readonly string[], continuation: string) =>
      lines.flatMap((line) => (terminal === Infinity ? [line] : wrapLine(line, terminal, continuation)));
    const lines = [
      context.style.bold('Commands'),
      ...wrap(
        slashCommands.flatMap((command) => row(usage(command), command.summary)),
        indent,
      ),
      context.style.bold('Keys'),
      ...wrap(
        [
          '  Enter      send the input',
          '  \\ + Enter  continue the input on a new line',
          '  Left/Right move by character (Alt-Left/Right, Ctrl-Left/Right by word); Home/End or Ctrl-A/Ctrl-E to the ends',
          '  Backspace  delete the character before the cursor (Ctrl-W the word, Ctrl-U the line before the cursor, Ctrl-K after it)',
          '  Tab        complete a slash command and its argument',
          '  Ctrl-C     cancel the running turn; at the prompt, press twice to exit',
          '  Ctrl-D     exit',
          '  Up / Down  recall earlier inputs',
        ],
        ' '.repeat(13),
      ),
      context.style.bold('Approvals'),
      ...wrap(
        ['  y: run the call once · s: allow the tool for this session · n: deny (text after n is passed to the model)'],
        '  ',
      ),
    ];
    context.print(`${lines.join('\n')}\n`);
    return 'continue';
  },
};

const exit: SlashCommand = {
  name: 'exit',
  summary: 'leave the REPL (also Ctrl-D)',
  run: () => 'exit',
};

/** Every slash command, in the order /help lists them. */
export const slashCommands: SlashCommand[] = [
  help,
  ...sessionSlashCommands,
  ...controlSlashCommands,
  mcpSlashCommand,
  exit,
];

function usage(command: SlashCommand): string {
  return `/${command.name}${command.arguments === undefined ? '' : ` ${command.arguments}`}`;
}

/** Splits `/name rest` into the command and its argument; undefined when no command has that name. */
export function findSlashCommand(
  input: string,
): { readonly command: SlashCommand; readonly argument: string } | { readonly unknown: string } {
  const match = /^\/(\S*)\s*([\s\S]*)$/.exec(input.trim());
  const name = match?.[1] ?? '';
  const command = slashCommands.find((candidate) => candidate.name === name);
  return command === undefined ? { unknown: name } : { command, argument: (match?.[2] ?? '').trim() };
}

/**
 * readline completer: completes `/na` to the slash commands starting with it, and the argument
 * of a command that offers completions (`/mode sh` → `/mode shadow`) when `context` is given.
 */
export function completeSlashCommand(line: string, context?: ReplContext): [string[], string] {
  if (!line.startsWith('/')) return [[], line];
  const space = line.indexOf(' ');
  if (space === -1)
    return [slashCommands.map((command) => `/${command.name}`).filter((name) => name.startsWith(line)), line];
  const command = slashCommands.find((candidate) => candidate.name === line.slice(1, space));
  if (command?.complete === undefined || context === undefined) return [[], line];
  const typed = line.slice(space + 1).trimStart();
  const prefix = line.slice(0, line.length - typed.length);
  return [
    command
      .complete(context)
      .filter((candidate) => candidate.startsWith(typed))
      .map((candidate) => `${prefix}${candidate}`),
    line,
  ];
}
