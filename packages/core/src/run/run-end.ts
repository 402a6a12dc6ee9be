import type { ErrorSummary, ForgeEvent, RunStatus } from '../events/events.js';
import { assistantText, type AssistantMessage, type Message } from '../messages.js';
import type { Usage } from '../model/adapter.js';
import { summarizeError } from './error-summary.js';
import type { RunCostSummary } from './run-cost.js';
import type { RunResult } from './types.js';

/** How a run ended, as its engine knows it. */
export interface RunEnd {
  readonly runId: string;
  readonly status: RunStatus;
  /** The user request, then what the run added. */
  readonly messages: readonly Message[];
  readonly steps: number;
  readonly usage: Usage;
  readonly durationMs: number;
  readonly instructionsHash: string;
  readonly error?: ErrorSummary | undefined;
  /** The cost figures, for an engine that prices its steps. */
  readonly cost?: RunCostSummary;
}

/**
 * Ends a run the same way on every engine: emits `run.failed` (with its error) or `run.completed`
 * (with its cost, when priced) and gives the result, whose `text` is the last assistant message's.
 */
export function endRun(emit: (event: ForgeEvent) => void, end: RunEnd): RunResult {
  const { runId, status, messages, steps, usage, durationMs, instructionsHash, error, cost = {} } = end;
  if (status === 'failed') {
    emit({
      type: 'run.failed',
      status,
      steps,
      usage,
      durationMs,
      error: error ?? summarizeError('unknown failure'),
      ...cost,
    });
  } else {
    emit({ type: 'run.completed', status, steps, usage, durationMs, ...cost });
  }
  const lastAssistant = messages.findLast((message): message is AssistantMessage => message.role === 'assistant');
  return {
    runId,
    status,
    messages,
    text: lastAssistant === undefined ? '' : assistantText(lastAssistant),
    steps,
    usage,
    ...cost,
    instructionsHash,
    ...(error === undefined ? {} : { error }),
  };
}
