import { truncateText } from '../checkpoint/text.js';
import type { ForgeEvent } from '../events/events.js';
import type { ToolCallPart, ToolMessage, ToolResultPart } from '../messages.js';
import { capToolErrorText } from '../tools/error-text-cap.js';
import type { ApprovalGate, Tool, ToolExecutionResult } from '../tools/tool.js';
import { summarizeError } from './error-summary.js';
import type { RunState } from './run-state.js';

type Outcome = 'ok' | 'error' | 'denied' | 'cancelled';

const denyAll: ApprovalGate = {
  check: async () => ({ kind: 'deny', reason: 'no approval policy was configured for this run' }),
};

function describeCall(tool: Tool | undefined, call: ToolCallPart): string {
  if (tool?.describe) {
    try {
      return tool.describe(call.input);
    } catch {
      // fall through: a describe that cannot read bad input must not hide the call
    }
  }
  return `${call.toolName} ${JSON.stringify(call.input).slice(0, 200)}`;
}

function errorResult(call: ToolCallPart, message: string): ToolResultPart {
  return {
    type: 'tool-result',
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    output: { type: 'error-text', value: capToolErrorText(message) },
  };
}

/** Longest `resultSummary` an event carries. */
const SUMMARY_CHARS = 240;

/** The first line of `text`, cut to `SUMMARY_CHARS`. */
function oneLine(text: string): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return truncateText(line, SUMMARY_CHARS);
}

/** A step's ending: its outcome, the result the model receives, and the line people see. */
type Ending = readonly [Outcome, ToolResultPart, string];

function ended(outcome: Outcome, result: ToolResultPart, summary: string): Ending {
  return [outcome, result, oneLine(summary)];
}

function fallbackSummary(result: ToolResultPart): string {
  const { output } = result;
  if (output.type === 'error-text') return `failed: ${output.value}`;
  if (output.type === 'text') return `${result.toolName} returned ${String(output.value.split('\n').length)} line(s)`;
  return `${result.toolName} returned ${output.type}`;
}

/**
 * Runs the tool calls of one assistant message in order and returns one tool message holding a
 * result for every call — including calls that were denied, failed, or skipped by cancellation —
 * so no call is ever left without its result.
 */
export async function runToolCalls(options: {
  calls: readonly ToolCallPart[];
  tools: ReadonlyMap<string, Tool>;
  approvals: ApprovalGate | undefined;
  signal: AbortSignal;
  step: number;
  emit: (event: ForgeEvent) => void;
  now: () => number;
}): Promise<ToolMessage> {
  const { calls, tools, signal, step, emit, now } = options;
  const approvals = options.approvals ?? denyAll;
  const results: ToolResultPart[] = [];

  for (const call of calls) {
    const tool = tools.get(call.toolName);
    const started = now();
    const summary = describeCall(tool, call);
    emit({ type: 'tool.call.started', step, toolCallId: call.toolCallId, toolName: call.toolName, summary });

    let ending: Ending;
    if (signal.aborted) {
      ending = ended(
        'cancelled',
        errorResult(call, 'Not run: the run was cancelled before this tool call started.'),
        'cancelled before it started',
      );
    } else if (tool === undefined) {
      const known = [...tools.keys()].sort().join(', ') || 'none';
      const message = `Unknown tool "${call.toolName}". Available tools: ${known}.`;
      ending = ended('error', errorResult(call, message), `refused: ${message}`);
    } else {
      ending =
        (await refusedBeforeApproval(tool, call, signal)) ??
        (await approveAndExecute(tool, call, summary, approvals, signal));
    }
    const [outcome, result, resultSummary] = ending;
    results.push(result);
    emit({
      type: 'tool.call.completed',
      step,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      outcome,
      durationMs: now() - started,
      resultSummary,
    });
  }
  return { role: 'tool', content: results };
}

/**
 * The tool's own look at the call before approval (`Tool.check`): a reason refuses the call, so
 * nobody is asked to approve what cannot happen. A check that throws leaves the decision to `execute`.
 */
async function refusedBeforeApproval(tool: Tool, call: ToolCallPart, signal: AbortSignal): Promise<Ending | undefined> {
  if (tool.check === undefined) return undefined;
  let reason: string | undefined;
  try {
    reason = await untilAborted(tool.check(call.input, { toolCallId: call.toolCallId, signal }), signal);
  } catch {
    if (signal.aborted)
      return ended(
        'cancelled',
        errorResult(call, 'Not run: the run was cancelled before this tool call started.'),
        'cancelled before it started',
      );
    return undefined;
  }
  if (reason === undefined) return undefined;
  return ended(
    'error',
    errorResult(call, reason),
    reason.startsWith(`${call.toolName} refused`) ? reason : `refused: ${reason}`,
  );
}

async function approveAndExecute(
  tool: Tool,
  call: ToolCallPart,
  summary: string,
  approvals: ApprovalGate,
  signal: AbortSignal,
): Promise<Ending> {
  let decision;
  try {
    const escalation = tool.escalation?.(call.input);
    decision = await approvals.check(
      {
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        input: call.input,
        risk: tool.risk,
        summary,
        ...(escalation === undefined ? {} : { escalation }),
      },
      signal,
    );
  } catch (error) {
    if (signal.aborted)
      return ended(
        'cancelled',
        errorResult(call, 'Not run: the run was cancelled while waiting for approval.'),
        'cancelled while waiting for approval',
      );
    const message = `Not run: approval failed: ${summarizeError(error).message}`;
    return ended('error', errorResult(call, message), message);
  }
  if (decision.kind === 'deny') {
    return ended('denied', errorResult(call, `Not run: denied — ${decision.reason}.`), `denied: ${decision.reason}`);
  }

  let executed: ToolExecutionResult;
  try {
    executed = await untilAborted(tool.execute(call.input, { toolCallId: call.toolCallId, signal }), signal);
  } catch (error) {
    if (signal.aborted)
      return ended('cancelled', errorResult(call, CANCELLED_WHILE_RUNNING), 'cancelled while it was running');
    const message = `Tool "${call.toolName}" failed: ${summarizeError(error).message}`;
    return ended('error', errorResult(call, message), `failed: ${message}`);
  }
  const result: ToolResultPart = {
    type: 'tool-result',
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    // Error text is capped here, for every tool: a tool may quote what it failed on (a 10 MB line).
    output:
      executed.output.type === 'error-text'
        ? { type: 'error-text', value: capToolErrorText(executed.output.value) }
        : executed.output,
    ...(executed.metadata === undefined ? {} : { metadata: executed.metadata }),
  };
  if (signal.aborted) return ended('cancelled', result, 'cancelled while it was running');
  const failed = executed.output.type === 'error-text';
  const line = failed ? fallbackSummary(result) : (executed.summary ?? fallbackSummary(result));
  return ended(failed ? 'error' : 'ok', result, line);
}

/**
 * The result of a tool stopped by a cancellation: as a timed-out command's result does, it says
 * that what the tool started may outlive it, since the run stops waiting at once.
 */
const CANCELLED_WHILE_RUNNING =
  'Stopped: the run was cancelled while this tool was running. What it started may still be running, or may have done part of its work.';

/** Settles with `work`, or rejects as soon as `signal` aborts so a tool that ignores its signal cannot hold the run. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  // The tool may still settle after we stop waiting; its late failure is of no interest.
  work.catch(() => {});
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** The tool step of a run: runs the calls of `step` under the run's approvals and records their results. */
export async function toolStep(run: RunState, step: number, calls: readonly ToolCallPart[]): Promise<void> {
  const { tools, signal, emit, now } = run;
  await run.record(await runToolCalls({ calls, tools, approvals: run.options.approvals, signal, step, emit, now }));
}
