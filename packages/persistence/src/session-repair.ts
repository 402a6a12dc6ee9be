import { emptyUsage, findUnpairedToolCalls, type Message, type ToolMessage } from '@forge/core';
import { splitIntoGroups } from '@forge/core/view';
import type { SessionWriter } from './session-writer.js';

/** Error code recorded for a run whose process stopped before the run recorded its end. */
export const INTERRUPTED_RUN_CODE = 'interrupted';

/** What repairing a session changed or could not change; every repair is an appended record. */
export interface SessionRepairWarning {
  readonly code: 'tool_calls_interrupted' | 'run_interrupted' | 'unpaired_tool_calls';
  readonly message: string;
}

function interruptedResult(toolCallId: string, toolName: string): ToolMessage['content'][number] {
  return {
    type: 'tool-result',
    toolCallId,
    toolName,
    output: {
      type: 'error-text',
      value:
        'The Forge process stopped before this tool call finished, so its outcome is unknown. ' +
        'It may or may not have taken effect: check the workspace before relying on it, or repeat the call.',
    },
  };
}

/**
 * Appends an error result for every tool call at the end of the transcript that has no result,
 * so the next request pairs every call. Returns a warning naming them, or undefined when every
 * call at the end already has its result.
 */
export async function closeDanglingToolCalls(
  writer: SessionWriter,
  runId: string | undefined,
): Promise<SessionRepairWarning | undefined> {
  // The loaded messages suffice: a window starts where a message group starts.
  const messages = writer.loaded.messages;
  const lastGroup = splitIntoGroups(messages).at(-1);
  if (lastGroup === undefined || lastGroup.pendingToolCalls === 0) return undefined;
  const dangling = findUnpairedToolCalls(messages.slice(lastGroup.start));
  if (dangling.length === 0) return undefined;
  const results: Message = {
    role: 'tool',
    content: dangling.map((call) => interruptedResult(call.toolCallId, call.toolName)),
  };
  await writer.appendMessages([results], runId === undefined ? {} : { runId });
  const count = dangling.length === 1 ? 'a tool call' : `${dangling.length} tool calls`;
  return {
    code: 'tool_calls_interrupted',
    message:
      `A run of session ${writer.id} stopped before ${count} finished (${dangling.map((call) => call.toolName).join(', ')}); ` +
      `recorded ${dangling.length === 1 ? 'it' : 'them'} as interrupted. Check the workspace: an interrupted call may have taken effect.`,
  };
}

/**
 * Makes a session left behind by a crashed or killed process safe to continue, by appending
 * records (history is never rewritten):
 * - tool calls at the end of the transcript without results get an error result each, saying
 *   the process stopped before the call finished, so the next request pairs every call;
 * - every run with a start but no end gets an end with status `failed` and an `interrupted` error.
 *
 * Call it right after opening the session for writing. Unpaired calls in the middle of the
 * transcript cannot be fixed by appending; they are reported, not changed.
 */
export async function repairInterruptedSession(writer: SessionWriter): Promise<SessionRepairWarning[]> {
  const warnings: SessionRepairWarning[] = [];
  // What is loaded: a window holds the start of every run without an end (see `readSessionWindow`).
  const { runs, messages } = writer.loaded;
  const unfinished = runs.filter((run) => run.startedAt !== undefined && run.endedAt === undefined);
  const lastGroup = splitIntoGroups(messages).at(-1);
  const repairedFrom = lastGroup === undefined || lastGroup.pendingToolCalls === 0 ? messages.length : lastGroup.start;
  const earlier = findUnpairedToolCalls(messages.slice(0, repairedFrom));
  if (earlier.length > 0) {
    warnings.push({
      code: 'unpaired_tool_calls',
      message: `Session ${writer.id} has ${earlier.length} tool call(s) without results in the middle of its transcript (${earlier.map((call) => call.toolCallId).join(', ')}); they are left as they are.`,
    });
  }

  const closed = await closeDanglingToolCalls(writer, unfinished.at(-1)?.runId);
  if (closed !== undefined) warnings.push(closed);

  for (const run of unfinished) {
    await writer.recordRunEnd({
      runId: run.runId,
      status: 'failed',
      usage: emptyUsage,
      instructionsHash: run.instructionsHash,
      error: {
        code: INTERRUPTED_RUN_CODE,
        message: 'The Forge process stopped before this run finished (found when the session was opened again).',
        isRetryable: false,
      },
    });
    warnings.push({
      code: 'run_interrupted',
      message: `Run ${run.runId} of session ${writer.id} did not finish; recorded it as failed (interrupted).`,
    });
  }
  return warnings;
}
