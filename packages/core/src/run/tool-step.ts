import type { ForgeEvent } from '../events/events.js';
import type { ToolCallPart, ToolMessage, ToolResultPart } from '../messages.js';
import { capToolErrorText } from '../tools/error-text-cap.js';
import type { ApprovalGate, Tool, ToolExecutionResult } from '../tools/tool.js';
import { summarizeError } from './error-summary.js';

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
  return { type: 'tool-result', toolCallId: call.toolCallId, toolName: call.toolName, output: { type: 'error-text', value: capToolErrorText(message) } };
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

    let outcome: Outcome;
    let result: ToolResultPart;
    if (signal.aborted) {
      outcome = 'cancelled';
      result = errorResult(call, 'Not run: the run was cancelled before this tool call started.');
    } else if (tool === undefined) {
      outcome = 'error';
      const known = [...tools.keys()].sort().join(', ') || 'none';
      result = errorResult(call, `Unknown tool "${call.toolName}". Available tools: ${known}.`);
    } else {
      [outcome, result] = await approveAndExecute(tool, call, summary, approvals, signal);
    }
    results.push(result);
    emit({
      type: 'tool.call.completed',
      step,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      outcome,
      durationMs: now() - started,
    });
  }
  return { role: 'tool', content: results };
}

async function approveAndExecute(
  tool: Tool,
  call: ToolCallPart,
  summary: string,
  approvals: ApprovalGate,
  signal: AbortSignal,
): Promise<[Outcome, ToolResultPart]> {
  let decision;
  try {
    decision = await approvals.check(
      { toolCallId: call.toolCallId, toolName: call.toolName, input: call.input, risk: tool.risk, summary },
      signal,
    );
  } catch (error) {
    if (signal.aborted) return ['cancelled', errorResult(call, 'Not run: the run was cancelled while waiting for approval.')];
    return ['error', errorResult(call, `Not run: approval failed: ${summarizeError(error).message}`)];
  }
  if (decision.kind === 'deny') {
    return ['denied', errorResult(call, `Not run: denied — ${decision.reason}.`)];
  }

  let executed: ToolExecutionResult;
  try {
    executed = await untilAborted(tool.execute(call.input, { toolCallId: call.toolCallId, signal }), signal);
  } catch (error) {
    if (signal.aborted) return ['cancelled', errorResult(call, 'Stopped: the run was cancelled while this tool was running.')];
    return ['error', errorResult(call, `Tool "${call.toolName}" failed: ${summarizeError(error).message}`)];
  }
  const result: ToolResultPart = {
    type: 'tool-result',
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    // Error text is capped here, for every tool: a tool may quote what it failed on (a 10 MB line).
    output: executed.output.type === 'error-text' ? { type: 'error-text', value: capToolErrorText(executed.output.value) } : executed.output,
    ...(executed.metadata === undefined ? {} : { metadata: executed.metadata }),
  };
  if (signal.aborted) return ['cancelled', result];
  return [executed.output.type === 'error-text' ? 'error' : 'ok', result];
}

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
