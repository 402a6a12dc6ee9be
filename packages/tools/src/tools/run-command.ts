import { stat } from 'node:fs/promises';
import { MAX_TOOL_ERROR_TEXT_BYTES, type JsonValue, type Tool } from '@forge/core';
import { z } from 'zod';
import { runProcess, type ProcessOutcome, type RunProcessOptions } from '../run-process.js';
import { createCommandSandbox, type CommandSandbox } from '../sandbox/command-sandbox.js';
import { findSandboxDenial, sandboxDenialNote } from '../sandbox/sandbox-denial.js';
import { SANDBOX_ESCAPES, type SandboxEscape } from '../sandbox/sandbox-settings.js';
import { resolveWorkspacePath } from '../workspace.js';
import { errorText, field, fileProblem, inputJsonSchema, parseToolInput, quote, text } from './tool-support.js';

/** Default for `commandTimeoutMs`: both the timeout of a call that names none and the longest allowed. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 120_000;
/** Default for `outputCapBytes`: combined stdout and stderr kept per command. */
export const DEFAULT_OUTPUT_CAP_BYTES = MAX_TOOL_ERROR_TEXT_BYTES;

const inputSchema = z.strictObject({
  argv: z
    .array(z.string())
    .min(1)
    .refine((argv) => (argv[0] ?? '').length > 0, { message: 'the program name (argv[0]) must not be empty' })
    .describe('Program and arguments, e.g. ["npm", "test"]. Run directly, without a shell: no pipes, globs or && .'),
  cwd: z.string().min(1).optional().describe('Working directory relative to the workspace root (default ".").'),
  timeoutMs: z.int().min(1).optional().describe('Stop the command after this many milliseconds.'),
  sandbox: z
    .enum(SANDBOX_ESCAPES)
    .optional()
    .describe(
      'Leave the sandbox for this call: "network" turns the network on, "none" runs the command unconfined. The user must approve it; ask only after a command failed because of the sandbox.',
    ),
});

export interface RunCommandToolOptions {
  readonly root: string;
  /** Timeout of a call that names none, and the most a call may ask for (default 120 000 ms). */
  readonly commandTimeoutMs?: number | undefined;
  /** Combined stdout/stderr kept, first half and last half (default 64 KiB). */
  readonly outputCapBytes?: number | undefined;
  /**
   * Starts the program (default: a real process, {@link runProcess}). The eval harness passes one
   * that answers from a fixture, so its `run_command` is this tool in every other respect.
   */
  readonly runProcess?: ((options: RunProcessOptions) => Promise<ProcessOutcome>) | undefined;
  /** Where commands run (default: {@link createCommandSandbox} for `root` with the default settings). */
  readonly sandbox?: CommandSandbox | undefined;
}

/** What the description tells the model about the sandbox in force, so it asks instead of retrying blindly. */
function sandboxSentence(sandbox: CommandSandbox): string {
  const { settings, enforcement } = sandbox.status;
  if (enforcement.kind === 'none') return '';
  const writes =
    settings.mode === 'read-only'
      ? 'only $TMPDIR is writable'
      : 'only the workspace (not .git, AGENTS.md or .forge/) and $TMPDIR are writable';
  const network = sandbox.networkOff ? 'the network is off, and ' : '';
  return ` Commands run in a sandbox: ${network}${writes}. A command that fails because of it says so; then set sandbox ("network" or "none") to ask the user to let that call out.`;
}

function escapeOf(input: JsonValue): SandboxEscape | undefined {
  const value = field(input, 'sandbox');
  return SANDBOX_ESCAPES.find((escape) => escape === value);
}

/**
 * `run_command`: runs a program with arguments (no shell) inside the workspace, with a timeout
 * and an output cap. A timeout or a cancelled run stops the whole process group. The result
 * always states how the command ended.
 */
export function createRunCommandTool(options: RunCommandToolOptions): Tool {
  const maxTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  const outputCapBytes = options.outputCapBytes ?? DEFAULT_OUTPUT_CAP_BYTES;
  const start = options.runProcess ?? runProcess;
  const sandbox = options.sandbox ?? createCommandSandbox({ root: options.root });
  return {
    name: 'run_command',
    description:
      'Run a program in the workspace, e.g. tests or a build: argv is the program and its arguments, run without a shell ' +
      `(use ["sh", "-c", "..."] only if you need shell syntax). Times out after ${maxTimeoutMs} ms at most; long output keeps its start and end.` +
      sandboxSentence(sandbox),
    inputSchema: inputJsonSchema(inputSchema),
    risk: 'execute',
    describe: (input) => {
      const argv = field(input, 'argv');
      const command = Array.isArray(argv) ? renderArgv(argv.map(String)) : quote(argv);
      const cwd = field(input, 'cwd');
      const escalation = sandbox.escalation(escapeOf(input));
      return `run_command ${quote(command, 160)}${cwd === undefined ? '' : ` in ${quote(cwd)}`}${escalation === undefined ? '' : ` (${escalation.label})`}`;
    },
    escalation: (input) => sandbox.escalation(escapeOf(input)),
    async execute(input, context) {
      const parsed = parseToolInput('run_command', inputSchema, input);
      if (!parsed.ok) return parsed.result;
      const { argv, cwd = '.', sandbox: escape } = parsed.value;
      const timeoutMs = Math.min(parsed.value.timeoutMs ?? maxTimeoutMs, maxTimeoutMs);
      if (context.signal.aborted) return errorText('Not run: the run was cancelled before the command started.');

      let directory: string;
      try {
        const resolved = await resolveWorkspacePath(options.root, cwd);
        if (!(await stat(resolved.absolute)).isDirectory())
          return errorText(`cwd "${cwd}" is not a directory; use a directory inside the workspace.`);
        directory = resolved.absolute;
      } catch (error) {
        return fileProblem(error, cwd);
      }

      const program = argv[0] as string;
      let outcome: ProcessOutcome;
      try {
        outcome = await start({
          argv: [program, ...argv.slice(1)],
          cwd: directory,
          timeoutMs,
          outputCapBytes,
          signal: context.signal,
          sandbox,
          ...(escape === undefined ? {} : { escape }),
        });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT')
          return errorText(
            `Program "${program}" was not found: it is not on PATH and is not a file at that path. Check the name.`,
          );
        if (code === 'EACCES') return errorText(`Program "${program}" cannot be executed (permission denied).`);
        throw error;
      }
      const metadata = {
        argv,
        cwd,
        exitCode: outcome.exitCode,
        signal: outcome.signal,
        timedOut: outcome.timedOut,
        cancelled: outcome.cancelled,
        durationMs: outcome.durationMs,
        truncated: outcome.truncated,
        strayProcessesStopped: outcome.strays.stopped,
        strayProcessesRunning: outcome.strays.stillRunning,
        processesTracked: outcome.strays.tracked,
        pipesHeldOpen: outcome.pipesHeldOpen,
        ...(escape === undefined ? {} : { sandboxEscape: escape }),
      };
      const summary = `ran ${quote(renderArgv(argv), 100)} → ${shortEnding(outcome, timeoutMs)}`;
      const denial =
        failed(outcome) && sandbox.status.enforcement.kind !== 'none' && escape !== 'none'
          ? findSandboxDenial(outcome.output, sandbox.networkOff && escape !== 'network')
          : undefined;
      if (denial !== undefined) {
        return {
          ...errorText(`${render(argv, outcome, timeoutMs)}\n${sandboxDenialNote(denial)}`, {
            ...metadata,
            sandboxDenial: denial.kind,
          }),
          summary: `${summary} (stopped by the sandbox)`,
        };
      }
      return { ...text(render(argv, outcome, timeoutMs), metadata), summary };
    },
  };
}

function failed(outcome: ProcessOutcome): boolean {
  return !outcome.timedOut && !outcome.cancelled && (outcome.exitCode !== 0 || outcome.signal !== null);
}

function render(argv: readonly string[], outcome: ProcessOutcome, timeoutMs: number): string {
  const body = outcome.output.length === 0 ? '(no output)' : outcome.output.replace(/\n$/, '');
  return [`$ ${renderArgv(argv)}`, body, ending(outcome, timeoutMs), ...leftovers(outcome)].join('\n');
}

function ending(outcome: ProcessOutcome, timeoutMs: number): string {
  const after = `after ${outcome.durationMs} ms`;
  if (outcome.timedOut) return `[timed out after ${timeoutMs} ms: the command was stopped with its process group]`;
  if (outcome.cancelled)
    return `[cancelled ${after}: the run was aborted and the command was stopped with its process group]`;
  if (outcome.signal !== null) return `[killed by signal ${outcome.signal} ${after}]`;
  return `[exit code ${outcome.exitCode ?? 'unknown'} ${after}]`;
}

/** What is known about processes the command started outside its process group; nothing when there were none to tell of. */
function leftovers(outcome: ProcessOutcome): string[] {
  const { strays } = outcome;
  const lines: string[] = [];
  if (strays.stopped > 0)
    lines.push(
      `[also stopped ${plural(strays.stopped, 'process')} the command had started outside its process group (setsid)]`,
    );
  if (strays.stillRunning.length > 0) {
    lines.push(
      `[warning: ${plural(strays.stillRunning.length, 'process')} the command started could not be stopped and may still be running: pid ${strays.stillRunning.join(', ')}]`,
    );
  }
  if (outcome.pipesHeldOpen)
    lines.push(
      '[warning: the output stayed open after the command ended: a process it started that Forge cannot find may still be running]',
    );
  else if (!strays.tracked && (outcome.timedOut || outcome.cancelled)) {
    lines.push(
      '[note: this system has no process table Forge can read (/proc): processes the command started outside its process group may still be running]',
    );
  }
  return lines;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 'es'}`;
}

function shortEnding(outcome: ProcessOutcome, timeoutMs: number): string {
  const mayStillRun =
    outcome.strays.stillRunning.length > 0 || outcome.pipesHeldOpen
      ? ', something it started may still be running'
      : '';
  return `${shortStatus(outcome, timeoutMs)}${mayStillRun}`;
}

function shortStatus(outcome: ProcessOutcome, timeoutMs: number): string {
  if (outcome.timedOut) return `timed out after ${timeoutMs} ms`;
  if (outcome.cancelled) return 'cancelled';
  if (outcome.signal !== null) return `killed by ${outcome.signal}`;
  return `exit ${outcome.exitCode ?? 'unknown'}`;
}

/** argv as a reader would type it in a POSIX shell, quoting only where needed. */
export function renderArgv(argv: readonly string[]): string {
  return argv
    .map((argument) => (/^[\w@%+=:,./-]+$/.test(argument) ? argument : `'${argument.replace(/'/g, `'\\''`)}'`))
    .join(' ');
}
