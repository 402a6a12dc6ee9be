import type { ApprovalGate, RunResult, ToolCallRequest } from '@forge/core';
import { terminalLine } from '@forge/core/terminal';
import type { SessionTurnWarning } from '@forge/sessions';
import { UsageError } from '../cli-error.js';
import { prepareEngine } from '../engines/prepare-engine.js';
import type { TurnEngine } from '../engines/turn-engine.js';
import { loadCliConfig } from '../config/cli-config.js';
import { ExitCode, exitCodeForSignal } from '../exit-codes.js';
import { defaultModelNotice } from '../models/resolve-model.js';
import type { CliIo, TerminationSignal } from '../io.js';
import { createJsonRenderer, createTextRenderer } from '../output/event-renderer.js';
import { createStallWatch } from '../output/stall-watch.js';
import { styleFor, type Style } from '../output/style.js';
import { modelSwitchNote } from '../session/model-switch-note.js';
import { openCliSession } from '../session/open-cli-session.js';
import { sessionChoice, type SessionChoice } from '../session/session-choice.js';
import { resolveSessionSettings } from '../session/session-settings.js';
import { noticeTraceUsage } from '../session/trace-notice.js';
import type { RunOptions } from '../program.js';
import type { CommandInvocation } from './command.js';
import { describeExpansion, expandMcpReferences } from '../mcp/mcp-references.js';

/**
 * `forge run <prompt...>`: one non-interactive run. Confirm-level tool calls are denied (nobody
 * can answer a prompt), with a note on stderr saying how to allow them. Ctrl-C cancels the run.
 * The run is a turn of a session: a new one, or the one `--resume <id>` / `--last` names, whose
 * recent history it continues; `--no-session` stores nothing. SIGTERM and SIGHUP cancel the run
 * like Ctrl-C; Forge then exits with 143 or 129. A closed stdout (`| head`) cancels it too, recorded
 * as cancelled, and Forge exits with 141.
 */
export async function execute({ args, options, io }: CommandInvocation<RunOptions>): Promise<number> {
  const words = args[0];
  const prompt = (Array.isArray(words) ? words.join(' ') : String(words ?? '')).trim();
  if (prompt.length === 0)
    throw new UsageError('the prompt is empty; say what Forge should do, e.g. forge run "Summarise the workspace"');

  const choice = sessionChoice(options);
  const cancellation = new RunCancellation(io);
  try {
    const engine = await prepareEngine({ io, globals: options });
    try {
      return await runWithEngine(prompt, engine, { options, io, choice, cancellation });
    } finally {
      await engine.close();
    }
  } finally {
    cancellation.stopListening();
  }
}

/** Ctrl-C, SIGTERM and SIGHUP, from the start of `forge run` to its end, as one abort signal. */
class RunCancellation {
  private readonly controller = new AbortController();
  /** The termination signal that cancelled the run, if one did. */
  endedBy: TerminationSignal | undefined;
  readonly stopListening: () => void;

  constructor(io: CliIo) {
    const cancel = (reason: string) => {
      if (!this.controller.signal.aborted) io.stderr.write(`forge: cancelling…${reason}\n`);
      this.controller.abort();
    };
    const stopInterrupts = io.onInterrupt(() => cancel(''));
    const stopTerminations = io.onTerminate((signal) => {
      this.endedBy ??= signal;
      cancel(` (${signal})`);
    });
    this.stopListening = () => {
      stopInterrupts();
      stopTerminations();
    };
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }
}

async function runWithEngine(
  prompt: string,
  engine: TurnEngine,
  context: {
    readonly options: RunOptions;
    readonly io: CliIo;
    readonly choice: SessionChoice;
    readonly cancellation: RunCancellation;
  },
): Promise<number> {
  const { options, io, choice, cancellation } = context;
  const settings = await resolveSessionSettings({ io, globals: options });
  await engine.start();
  const errorStyle = styleFor(io.stderr, io.env);
  const { config } = (await loadCliConfig({ io, globals: options })).loaded;
  // Resolved before the session opens, so a reference that cannot be resolved stores nothing.
  const expanded = await expandMcpReferences(prompt, {
    mcp: engine.mcp,
    redact: (text) => settings.redactor.redact(text),
    signal: cancellation.signal,
  });
  for (const line of describeExpansion(expanded)) io.stderr.write(`${errorStyle.dim(`forge: ${line}`)}\n`);
  // Mode compact sends the checkpoint and what follows it: only that much of the log is read.
  const session = await openCliSession({
    choice,
    settings,
    workspaceRoot: engine.root,
    window: engine.contextMode === 'compact',
  });
  const json = options.json === true;
  // --json output stays machine-readable; the demo's own first line says it is the demo.
  if (!json && engine.name === 'native' && config.model === undefined)
    io.stderr.write(`${errorStyle.yellow(`forge: ${defaultModelNotice('--model')}`)}\n`);
  const stall = createStallWatch(io.stdout, {
    enabled: !json && io.stdout.isTTY === true && io.env.TERM !== 'dumb',
    style: styleFor(io.stdout, io.env),
  });
  const renderer = json
    ? createJsonRenderer(io.stdout)
    : createTextRenderer({
        text: io.stdout,
        activity: io.stderr,
        style: errorStyle,
        beforeWrite: () => stall.erase(),
        onText: (shown) => stall.text(shown),
      });

  let result: RunResult;
  try {
    if (session !== undefined) {
      writeWarnings(session.openWarnings, io, errorStyle);
      const switched = modelSwitchNote([{ model: session.loaded.lastModel }], engine.modelLabel, '--model');
      if (switched !== undefined) io.stderr.write(`${errorStyle.yellow(`forge: note: ${switched}`)}\n`);
      const recordedIn = session.loaded.workspaceRoot;
      if (recordedIn !== null && recordedIn !== engine.root) {
        io.stderr.write(
          `${errorStyle.dim(`forge: session ${session.id} was recorded in ${recordedIn}; its tools now work in ${engine.root}`)}\n`,
        );
      }
    }
    const turn = await engine.runTurn(session, {
      request: expanded.request,
      approvals: noteDenials(engine.approvals, io),
      signal: cancellation.signal,
      onEvent: (envelope) => {
        renderer.onEvent(envelope);
        if (envelope.event.type !== 'model.text.delta') stall.stop();
      },
      onEngineEvent: (envelope) => {
        if (json) io.stdout.write(`${JSON.stringify(envelope)}\n`);
      },
      onNote: (text) => {
        if (!json) io.stderr.write(`${errorStyle.dim(`• ${terminalLine(text)}`)}\n`);
      },
    });
    writeWarnings(turn.warnings, io, errorStyle);
    result = turn.result;
  } finally {
    stall.stop();
    renderer.finishRun();
    await session?.close();
  }
  if (session !== undefined && !json) io.stderr.write(`${errorStyle.dim(`session: ${session.id}`)}\n`);
  if (session !== undefined) await noticeTraceUsage(io, settings.forgeHome, config.traces);
  return reportOutcome(result, io, cancellation.endedBy);
}

function writeWarnings(warnings: readonly SessionTurnWarning[], io: CliIo, style: Style): void {
  for (const warning of warnings)
    io.stderr.write(`${style.yellow(`forge: warning: ${terminalLine(warning.message)}`)}\n`);
}

/** Passes decisions through unchanged, telling the user on stderr about each denial and how to allow it. */
function noteDenials(gate: ApprovalGate, io: CliIo): ApprovalGate {
  return {
    async check(call, signal) {
      const decision = await gate.check(call, signal);
      if (decision.kind === 'deny')
        io.stderr.write(`forge: denied ${terminalLine(call.summary)}: ${howToAllow(call)}\n`);
      return decision;
    },
  };
}

function howToAllow(call: ToolCallRequest): string {
  if (call.risk === 'write')
    return 'forge run cannot ask for approval; re-run with --approval workspace-write to allow edits';
  return 'forge run cannot ask for approval; re-run with --approval workspace-auto to allow commands, or approve them one by one in the REPL (forge)';
}

function reportOutcome(result: RunResult, io: CliIo, endedBy: TerminationSignal | undefined): number {
  switch (result.status) {
    case 'completed':
      return ExitCode.ok;
    case 'cancelled':
      io.stderr.write(
        endedBy === undefined
          ? 'forge: cancelled\n'
          : endedBy === 'SIGPIPE'
            ? 'forge: cancelled: stdout was closed before the run ended (SIGPIPE); the run is recorded as cancelled\n'
            : `forge: cancelled by ${endedBy}\n`,
      );
      return endedBy === undefined ? ExitCode.cancelled : exitCodeForSignal(endedBy);
    case 'step_limit':
      io.stderr.write(
        `forge: error: the run stopped after ${result.steps} model steps without a final answer; raise --max-steps or narrow the request\n`,
      );
      return ExitCode.failure;
    case 'limit_reached':
    case 'failed': {
      const reason =
        result.error === undefined ? result.status : terminalLine(`${result.error.message} (${result.error.code})`);
      io.stderr.write(
        `forge: error: the run ${result.status === 'failed' ? 'failed' : 'stopped at a limit'}: ${reason}\n`,
      );
      return ExitCode.failure;
    }
  }
}
