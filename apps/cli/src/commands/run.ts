import { runAgent, type ApprovalGate, type RunResult, type ToolCallRequest } from '@forge/core';
import type { SessionHandle, SessionTurnOptions, SessionTurnWarning } from '@forge/persistence';
import { prepareAgent } from '../agent/agent-setup.js';
import { UsageError } from '../cli-error.js';
import { ExitCode } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import { createJsonRenderer, createTextRenderer } from '../output/event-renderer.js';
import { styleFor, type Style } from '../output/style.js';
import { openCliSession } from '../session/open-cli-session.js';
import { sessionChoice } from '../session/session-choice.js';
import { resolveSessionSettings } from '../session/session-settings.js';
import type { CommandInvocation } from './command.js';

/**
 * `forge run <prompt...>`: one non-interactive run. Confirm-level tool calls are denied (nobody
 * can answer a prompt), with a note on stderr saying how to allow them. Ctrl-C cancels the run.
 * The run is a turn of a session: a new one, or the one `--resume <id>` / `--last` names, whose
 * recent history it continues; `--no-session` stores nothing.
 */
export async function execute({ args, options, io }: CommandInvocation): Promise<number> {
  const words = args[0];
  const prompt = (Array.isArray(words) ? words.join(' ') : String(words ?? '')).trim();
  if (prompt.length === 0) throw new UsageError('the prompt is empty; say what Forge should do, e.g. forge run "Summarise the workspace"');

  const choice = sessionChoice(options);
  const setup = await prepareAgent({ io, globals: options, defaultProfile: 'ask' });
  const settings = await resolveSessionSettings({ io, globals: options });
  const errorStyle = styleFor(io.stderr, io.env);
  const session = await openCliSession({ choice, settings, workspaceRoot: setup.root });
  const renderer =
    options.json === true
      ? createJsonRenderer(io.stdout)
      : createTextRenderer({ text: io.stdout, activity: io.stderr, style: errorStyle });

  const controller = new AbortController();
  const stopListening = io.onInterrupt(() => {
    if (!controller.signal.aborted) io.stderr.write('forge: cancelling…\n');
    controller.abort();
  });
  let result: RunResult;
  try {
    if (session !== undefined) {
      writeWarnings(session.openWarnings, io, errorStyle);
      const recordedIn = session.transcript().workspaceRoot;
      if (recordedIn !== null && recordedIn !== setup.root) {
        io.stderr.write(`${errorStyle.dim(`forge: session ${session.id} was recorded in ${recordedIn}; its tools now work in ${setup.root}`)}\n`);
      }
    }
    const turn: Omit<SessionTurnOptions, 'recentTailTokens'> = {
      model: setup.model,
      request: prompt,
      instructions: setup.instructions,
      tools: setup.tools,
      approvals: noteDenials(setup.approvals, io),
      ...(setup.maxSteps === undefined ? {} : { maxSteps: setup.maxSteps }),
      signal: controller.signal,
      onEvent: (envelope) => renderer.onEvent(envelope),
    };
    result = session === undefined ? await runAgent(turn) : await runStoredTurn(session, turn, settings.recentTailTokens, io, errorStyle);
  } finally {
    stopListening();
    renderer.finishRun();
    await session?.close();
  }
  if (session !== undefined && options.json !== true) io.stderr.write(`${errorStyle.dim(`session: ${session.id}`)}\n`);
  return reportOutcome(result, io);
}

async function runStoredTurn(
  session: SessionHandle,
  turn: Omit<SessionTurnOptions, 'recentTailTokens'>,
  recentTailTokens: number,
  io: CliIo,
  style: Style,
): Promise<RunResult> {
  const stored = await session.runTurn({ ...turn, recentTailTokens });
  writeWarnings(stored.warnings, io, style);
  return stored.result;
}

function writeWarnings(warnings: readonly SessionTurnWarning[], io: CliIo, style: Style): void {
  for (const warning of warnings) io.stderr.write(`${style.yellow(`forge: warning: ${warning.message}`)}\n`);
}

/** Passes decisions through unchanged, telling the user on stderr about each denial and how to allow it. */
function noteDenials(gate: ApprovalGate, io: CliIo): ApprovalGate {
  return {
    async check(call, signal) {
      const decision = await gate.check(call, signal);
      if (decision.kind === 'deny') io.stderr.write(`forge: denied ${call.summary}: ${howToAllow(call)}\n`);
      return decision;
    },
  };
}

function howToAllow(call: ToolCallRequest): string {
  if (call.risk === 'write') return 'forge run cannot ask for approval; re-run with --approval workspace-write to allow edits';
  return 'forge run cannot ask for approval; re-run with --approval workspace-auto to allow commands, or approve them one by one in the REPL (forge)';
}

function reportOutcome(result: RunResult, io: CliIo): number {
  switch (result.status) {
    case 'completed':
      return ExitCode.ok;
    case 'cancelled':
      io.stderr.write('forge: cancelled\n');
      return ExitCode.cancelled;
    case 'step_limit':
      io.stderr.write(`forge: error: the run stopped after ${result.steps} model steps without a final answer; raise --max-steps or narrow the request\n`);
      return ExitCode.failure;
    case 'limit_reached':
    case 'failed': {
      const reason = result.error === undefined ? result.status : `${result.error.message} (${result.error.code})`;
      io.stderr.write(`forge: error: the run ${result.status === 'failed' ? 'failed' : 'stopped at a limit'}: ${reason}\n`);
      return ExitCode.failure;
    }
  }
}
