import { runAgent, type ApprovalGate, type RunResult, type ToolCallRequest } from '@forge/core';
import { prepareAgent } from '../agent/agent-setup.js';
import { UsageError } from '../cli-error.js';
import { ExitCode } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import { createJsonRenderer, createTextRenderer } from '../output/event-renderer.js';
import { styleFor } from '../output/style.js';
import type { CommandInvocation } from './command.js';

/**
 * `forge run <prompt...>`: one non-interactive run. Confirm-level tool calls are denied (nobody
 * can answer a prompt), with a note on stderr saying how to allow them. Ctrl-C cancels the run.
 */
export async function execute({ args, options, io }: CommandInvocation): Promise<number> {
  const words = args[0];
  const prompt = (Array.isArray(words) ? words.join(' ') : String(words ?? '')).trim();
  if (prompt.length === 0) throw new UsageError('the prompt is empty; say what Forge should do, e.g. forge run "Summarise the workspace"');

  const setup = await prepareAgent({ io, globals: options, defaultProfile: 'ask' });
  const errorStyle = styleFor(io.stderr, io.env);
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
    result = await runAgent({
      model: setup.model,
      request: prompt,
      instructions: setup.instructions,
      tools: setup.tools,
      approvals: noteDenials(setup.approvals, io),
      ...(setup.maxSteps === undefined ? {} : { maxSteps: setup.maxSteps }),
      signal: controller.signal,
      onEvent: (envelope) => renderer.onEvent(envelope),
    });
  } finally {
    stopListening();
    renderer.finishRun();
  }
  return reportOutcome(result, io);
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
